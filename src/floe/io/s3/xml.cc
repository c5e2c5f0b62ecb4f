#include "floe/io/s3/xml.h"

#include <cstdint>

#include "floe/base/macros.h"

namespace floe::io::s3 {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool IsNameChar(char c) {
  auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || c == '-' || c == '.' || c == ':' || u >= 0x80;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::string_view text, XmlLimits limits) : text_(text), limits_(limits) {}

  Result<XmlElement> Document() {
    FLOE_RETURN_IF_ERROR(SkipMisc(/*prolog=*/true));
    if (!Peek('<')) return Error("no root element");
    XmlElement root;
    FLOE_RETURN_IF_ERROR(Element(&root, 1));
    FLOE_RETURN_IF_ERROR(SkipMisc(/*prolog=*/false));
    if (pos_ != text_.size()) return Error("content after the root element");
    return root;
  }

 private:
  Status Error(std::string_view what) const {
    return Status::Corrupt("malformed XML at byte {}: {}", pos_, what);
  }
  bool Peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool StartsWith(std::string_view s) const { return text_.substr(pos_).starts_with(s); }
  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }
  // Moves past the next `end`; false when the input ends first.
  bool SkipPast(std::string_view end) {
    size_t at = text_.find(end, pos_);
    if (at == std::string_view::npos) return false;
    pos_ = at + end.size();
    return true;
  }

  // Whitespace, comments and processing instructions around the root element.
  Status SkipMisc(bool prolog) {
    while (true) {
      SkipSpace();
      if (StartsWith("<?")) {
        if (!SkipPast("?>")) return Error("unterminated processing instruction");
      } else if (StartsWith("<!--")) {
        if (!SkipPast("-->")) return Error("unterminated comment");
      } else if (StartsWith("<!")) {
        return Error(prolog ? "DOCTYPE declarations are not accepted" : "unexpected '<!'");
      } else {
        return Status::OK();
      }
    }
  }

  Result<std::string> Name() {
    size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    if (pos_ == start) return Error("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }

  static std::string LocalName(const std::string& name) {
    size_t colon = name.rfind(':');
    return colon == std::string::npos ? name : name.substr(colon + 1);
  }

  // Decodes one entity or character reference at pos_ ('&').
  Status Reference(std::string* out) {
    size_t end = text_.find(';', pos_);
    if (end == std::string_view::npos || end - pos_ > 12) return Error("bad reference");
    std::string_view ref = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    if (ref == "lt")
      *out += '<';
    else if (ref == "gt")
      *out += '>';
    else if (ref == "amp")
      *out += '&';
    else if (ref == "quot")
      *out += '"';
    else if (ref == "apos")
      *out += '\'';
    else if (ref.starts_with('#')) {
      bool hex = ref.size() > 1 && (ref[1] == 'x' || ref[1] == 'X');
      std::string_view digits = ref.substr(hex ? 2 : 1);
      if (digits.empty()) return Error("empty character reference");
      uint32_t cp = 0;
      for (char c : digits) {
        int v;
        if (c >= '0' && c <= '9')
          v = c - '0';
        else if (hex && c >= 'a' && c <= 'f')
          v = c - 'a' + 10;
        else if (hex && c >= 'A' && c <= 'F')
          v = c - 'A' + 10;
        else
          return Error("bad character reference");
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
        if (cp > 0x10FFFF) return Error("character reference out of range");
      }
      if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) return Error("invalid character reference");
      AppendUtf8(cp, out);
    } else {
      return Error("unknown entity");
    }
    return Status::OK();
  }

  Status Element(XmlElement* element, int depth) {
    if (depth > limits_.max_depth) return Error("elements nested too deeply");
    if (++elements_ > limits_.max_elements) return Error("too many elements");
    ++pos_;  // '<'
    FLOE_ASSIGN_OR_RETURN(std::string name, Name());
    element->name = LocalName(name);
    // Attributes are read for well-formedness and dropped.
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) return Error("unterminated start tag");
      if (StartsWith("/>")) {
        pos_ += 2;
        return Status::OK();
      }
      if (Peek('>')) {
        ++pos_;
        break;
      }
      FLOE_RETURN_IF_ERROR(Name().status());
      SkipSpace();
      if (!Peek('=')) return Error("expected '=' after an attribute name");
      ++pos_;
      SkipSpace();
      if (!Peek('"') && !Peek('\'')) return Error("expected a quoted attribute value");
      char quote = text_[pos_++];
      size_t end = text_.find(quote, pos_);
      if (end == std::string_view::npos) return Error("unterminated attribute value");
      pos_ = end + 1;
    }
    // Content up to the matching end tag.
    while (true) {
      if (pos_ >= text_.size()) return Error("unterminated element " + element->name);
      char c = text_[pos_];
      if (c == '&') {
        FLOE_RETURN_IF_ERROR(Reference(&element->text));
      } else if (c != '<') {
        element->text += c;
        ++pos_;
      } else if (StartsWith("</")) {
        pos_ += 2;
        FLOE_ASSIGN_OR_RETURN(std::string end_name, Name());
        if (end_name != name) return Error("end tag does not match " + name);
        SkipSpace();
        if (!Peek('>')) return Error("expected '>'");
        ++pos_;
        return Status::OK();
      } else if (StartsWith("<!--")) {
        if (!SkipPast("-->")) return Error("unterminated comment");
      } else if (StartsWith("<![CDATA[")) {
        size_t start = pos_ + 9;
        size_t end = text_.find("]]>", start);
        if (end == std::string_view::npos) return Error("unterminated CDATA section");
        element->text.append(text_.substr(start, end - start));
        pos_ = end + 3;
      } else if (StartsWith("<?")) {
        if (!SkipPast("?>")) return Error("unterminated processing instruction");
      } else if (StartsWith("<!")) {
        return Error("unexpected declaration");
      } else {
        element->children.emplace_back();
        FLOE_RETURN_IF_ERROR(Element(&element->children.back(), depth + 1));
      }
    }
  }

  std::string_view text_;
  XmlLimits limits_;
  size_t pos_ = 0;
  size_t elements_ = 0;
};

}  // namespace

const XmlElement* XmlElement::Child(std::string_view child_name) const {
  for (const XmlElement& child : children) {
    if (child.name == child_name) return &child;
  }
  return nullptr;
}

std::string_view XmlElement::ChildText(std::string_view child_name) const {
  const XmlElement* child = Child(child_name);
  return child ? std::string_view(child->text) : std::string_view();
}

Result<XmlElement> ParseXml(std::string_view text, XmlLimits limits) {
  return Parser(text, limits).Document();
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace floe::io::s3
