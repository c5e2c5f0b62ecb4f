#include "floe/io/s3/xml.h"

#include <gtest/gtest.h>

namespace floe::io::s3 {
namespace {

// The ListObjectsV2 response of the S3 API reference's example, one object.
constexpr char kListPage[] = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name>
  <Prefix/>
  <KeyCount>1</KeyCount>
  <MaxKeys>1000</MaxKeys>
  <IsTruncated>true</IsTruncated>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
  <Contents>
    <Key>my-image.jpg</Key>
    <LastModified>2009-10-12T17:50:30.000Z</LastModified>
    <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag>
    <Size>434234</Size>
    <StorageClass>STANDARD</StorageClass>
  </Contents>
</ListBucketResult>)";

TEST(Xml, ListObjectsV2Page) {
  auto root = ParseXml(kListPage);
  ASSERT_TRUE(root.has_value()) << root.error().ToString();
  EXPECT_EQ(root->name, "ListBucketResult");
  EXPECT_EQ(root->ChildText("IsTruncated"), "true");
  EXPECT_EQ(root->ChildText("NextContinuationToken"),
            "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
  EXPECT_EQ(root->ChildText("Prefix"), "");
  EXPECT_EQ(root->ChildText("Missing"), "");
  const XmlElement* contents = root->Child("Contents");
  ASSERT_NE(contents, nullptr);
  EXPECT_EQ(contents->ChildText("Key"), "my-image.jpg");
  EXPECT_EQ(contents->ChildText("ETag"), "\"fba9dede5f27731c9771645a39863328\"");
  EXPECT_EQ(contents->ChildText("Size"), "434234");
}

TEST(Xml, ErrorBody) {
  auto root = ParseXml(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
      "<Message>Please reduce your request rate.</Message><RequestId>4442587FB7D0A2F9"
      "</RequestId></Error>");
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(root->name, "Error");
  EXPECT_EQ(root->ChildText("Code"), "SlowDown");
  EXPECT_EQ(root->ChildText("Message"), "Please reduce your request rate.");
}

TEST(Xml, EntitiesCdataCommentsPrefixes) {
  auto root = ParseXml(
      "<!-- c --><s3:R a='1' b=\"&lt;\"><K>a&amp;b &#233;&#x20AC;&apos;&quot;&gt;</K>"
      "<!-- inner --><K><![CDATA[<raw>&amp;]]></K><E/></s3:R>\n");
  ASSERT_TRUE(root.has_value()) << root.error().ToString();
  EXPECT_EQ(root->name, "R");
  ASSERT_EQ(root->children.size(), 3u);
  EXPECT_EQ(root->children[0].text, "a&b \xC3\xA9\xE2\x82\xAC'\">");
  EXPECT_EQ(root->children[1].text, "<raw>&amp;");
  EXPECT_EQ(root->children[2].name, "E");
}

TEST(Xml, MalformedInputIsCorrupt) {
  const char* cases[] = {
      "",
      "   ",
      "plain text",
      "<a>",
      "<a></b>",
      "<a><b></a></b>",
      "<a>&unknown;</a>",
      "<a>&#0;</a>",
      "<a>&#xD800;</a>",
      "<a>&#x110000;</a>",
      "<a>&#xZZ;</a>",
      "<a>&amp</a>",
      "<a b></a>",
      "<a b=c></a>",
      "<a b=\"c></a>",
      "<a></a><b></b>",
      "<a></a>trailing",
      "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>",
      "<a><![CDATA[x</a>",
      "<a><!-- x</a>",
      "<?xml",
      "<>",
      "</a>",
  };
  for (const char* text : cases) {
    auto root = ParseXml(text);
    EXPECT_FALSE(root.has_value()) << text;
    if (!root.has_value()) {
      EXPECT_EQ(root.error().code(), StatusCode::kCorrupt) << text;
    }
  }
}

TEST(Xml, EveryTruncationOfAValidDocumentFails) {
  std::string doc = kListPage;
  for (size_t n = 0; n < doc.size(); ++n) {
    EXPECT_FALSE(ParseXml(std::string_view(doc).substr(0, n)).has_value()) << n;
  }
  EXPECT_TRUE(ParseXml(doc).has_value());
}

TEST(Xml, DepthAndSizeAreBounded) {
  std::string deep;
  for (int i = 0; i < 100'000; ++i) deep += "<a>";
  auto root = ParseXml(deep);
  ASSERT_FALSE(root.has_value());
  EXPECT_NE(root.error().message().find("deeply"), std::string_view::npos);

  std::string wide = "<r>";
  for (int i = 0; i < 20; ++i) wide += "<c/>";
  wide += "</r>";
  EXPECT_TRUE(ParseXml(wide).has_value());
  EXPECT_FALSE(ParseXml(wide, XmlLimits{.max_depth = 32, .max_elements = 10}).has_value());
}

TEST(Xml, Escape) {
  EXPECT_EQ(XmlEscape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  auto root = ParseXml("<K>" + XmlEscape("x&<y>'\"") + "</K>");
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(root->text, "x&<y>'\"");
}

}  // namespace
}  // namespace floe::io::s3
