// A small XML reader for S3 responses (ListObjectsV2, multipart uploads, DeleteObjects,
// error bodies). It builds a tree of elements with their text and ignores attributes,
// namespaces prefixes, comments and processing instructions. Bounded and strict: input from
// the network that is not well-formed (or nests deeper than a limit, or declares a DOCTYPE,
// which could define entities) is kCorrupt, never a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"

namespace floe::io::s3 {

struct XmlElement {
  std::string name;  // local name: a namespace prefix is dropped
  std::string text;  // character data directly inside, entities decoded
  std::vector<XmlElement> children;

  // The first child named `name`, or nullptr.
  const XmlElement* Child(std::string_view child_name) const;
  // The first child's text, or "" when there is none.
  std::string_view ChildText(std::string_view child_name) const;
};

struct XmlLimits {
  int max_depth = 32;
  size_t max_elements = 200'000;
};

// Parses a whole document and returns its root element. Errors: kCorrupt.
Result<XmlElement> ParseXml(std::string_view text, XmlLimits limits = {});

// Escapes & < > " ' for element text.
std::string XmlEscape(std::string_view text);

}  // namespace floe::io::s3
