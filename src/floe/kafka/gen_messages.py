#!/usr/bin/env python3
"""Generates floe's Kafka message structs from messages.def.

Usage: gen_messages.py messages.def out_dir
Writes out_dir/floe/kafka/messages.h and messages.cc: one struct per request and response
with nested structs for array elements, each with
  Status Read(KafkaReader& r, int16_t version)
  void Write(KafkaWriter& w, int16_t version) const
and a table of the APIs (key, versions, first flexible version). The reader and writer
(floe/kafka/protocol.h) choose classic or compact encodings from the message version.
"""
import os
import re
import sys

SCALARS = {
    "int8": ("int8_t", "Int8", "0"),
    "int16": ("int16_t", "Int16", "0"),
    "int32": ("int32_t", "Int32", "0"),
    "int64": ("int64_t", "Int64", "0"),
    "bool": ("bool", "Bool", "false"),
    "uuid": ("Uuid", "ReadUuid", None),
}


class Field:
    def __init__(self, name, type_, vmin, vmax, null_min, null_max, tag, default, line):
        self.name, self.type, self.vmin, self.vmax = name, type_, vmin, vmax
        self.null_min, self.null_max = null_min, null_max
        self.tag, self.default, self.line = tag, default, line
        self.children = []  # fields of the element struct for []Struct

    @property
    def nullable(self):
        return self.null_min is not None

    @property
    def is_struct_array(self):
        return self.type.startswith("[]") and self.type[2:] not in ("int32", "string")

    @property
    def elem(self):
        return self.type[2:]


class Message:
    def __init__(self, kind, api, key, vmin, vmax, flex):
        self.kind, self.api, self.key = kind, api, key
        self.vmin, self.vmax, self.flex = vmin, vmax, flex
        self.fields = []

    @property
    def cname(self):
        return self.api + ("Request" if self.kind == "request" else "Response")


def die(line_no, msg):
    sys.exit(f"messages.def:{line_no}: {msg}")


def parse_versions(text, vmax, line_no):
    m = re.fullmatch(r"(\d+)\+", text)
    if m:
        return int(m.group(1)), vmax
    m = re.fullmatch(r"(\d+)-(\d+)", text)
    if m:
        return int(m.group(1)), int(m.group(2))
    if re.fullmatch(r"\d+", text):
        return int(text), int(text)
    die(line_no, f"bad versions '{text}'")


def snake(name):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


def parse(path):
    messages = []
    stack = []  # (indent, field list)
    for line_no, raw in enumerate(open(path), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        words = line.split()
        if indent == 0:
            if words[0] not in ("request", "response"):
                die(line_no, "expected request or response")
            opts = dict(w.split("=", 1) for w in words[2:])
            vmin, vmax = parse_versions(opts["versions"], None, line_no)
            flex = 1 << 15 if opts["flexible"] == "none" else int(opts["flexible"])
            msg = Message(words[0], words[1], int(opts["key"]), vmin, vmax, flex)
            messages.append(msg)
            stack = [(0, msg.fields)]
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if not stack:
            die(line_no, "bad indentation")
        msg = messages[-1]
        name, type_, vers = words[0], words[1], words[2]
        vmin, vmax = parse_versions(vers, msg.vmax, line_no)
        null_min = null_max = tag = default = None
        for w in words[3:]:
            k, v = w.split("=", 1)
            if k == "null":
                null_min, null_max = parse_versions(v, msg.vmax, line_no)
            elif k == "tag":
                tag = int(v)
            elif k == "default":
                default = v
            else:
                die(line_no, f"unknown option {k}")
        base = type_[2:] if type_.startswith("[]") else type_
        if base not in SCALARS and base not in ("string", "bytes", "records") and \
                not type_.startswith("[]"):
            die(line_no, f"unknown type {type_}")
        f = Field(name, type_, vmin, vmax, null_min, null_max, tag, default, line_no)
        stack[-1][1].append(f)
        if f.is_struct_array:
            stack.append((indent, f.children))
    return messages


def cpp_type(f):
    t = f.type
    if t in SCALARS:
        base = SCALARS[t][0]
    elif t == "string":
        base = "std::string"
    elif t in ("bytes", "records"):
        base = "std::span<const uint8_t>"
    elif t == "[]int32":
        base = "std::vector<int32_t>"
    elif t == "[]string":
        base = "std::vector<std::string>"
    else:
        base = f"std::vector<{f.elem}>"
    if f.nullable and t not in SCALARS:
        return f"std::optional<{base}>"
    return base


def initializer(f):
    if f.type in SCALARS:
        if f.default is not None:
            d = f.default
            if d == "-2147483648":
                return "{INT32_MIN}"
            return "{" + d + "}"
        return "{}" if f.type == "uuid" else "{" + SCALARS[f.type][2] + "}"
    return ""


def in_range(var, lo, hi, top):
    conds = []
    if lo > 0:
        conds.append(f"{var} >= {lo}")
    if hi < top:
        conds.append(f"{var} <= {hi}")
    return " && ".join(conds) if conds else "true"


class Emitter:
    def __init__(self):
        self.h = []
        self.cc = []

    def struct(self, name, fields, msg, qual, depth):
        # Element structs first, so the parent can hold vectors of them.
        ind = "  " * depth
        for f in fields:
            if f.is_struct_array:
                self.struct(f.elem, f.children, msg, msg.cname + "::" + f.elem, depth)
        self.h.append(f"{ind}struct {name} {{")
        for f in fields:
            self.h.append(f"{ind}  {cpp_type(f)} {snake(f.name)}{initializer(f)};")
        self.h.append(f"{ind}  Status Read(KafkaReader& r, int16_t version);")
        self.h.append(f"{ind}  void Write(KafkaWriter& w, int16_t version) const;")
        self.h.append(f"{ind}}};")
        self.read_fn(qual, fields, msg)
        self.write_fn(qual, fields, msg)

    # --- reading -------------------------------------------------------------------------
    def read_value(self, f, target, msg, out, ind, r="r"):
        """Appends code that reads field f into `target` (an lvalue)."""
        t = f.type
        nullable_cond = in_range("version", f.null_min, f.null_max, msg.vmax) \
            if f.nullable else "false"
        if t in SCALARS:
            fn = SCALARS[t][1]
            out.append(f"{ind}FLOE_ASSIGN_OR_RETURN({target}, {r}.{fn}());")
        elif t == "string":
            if f.nullable:
                out.append(f"{ind}FLOE_ASSIGN_OR_RETURN({target}, {r}.NullableString({nullable_cond}));")
            else:
                out.append(f"{ind}FLOE_ASSIGN_OR_RETURN({target}, {r}.String());")
        elif t in ("bytes", "records"):
            if f.nullable:
                out.append(f"{ind}FLOE_ASSIGN_OR_RETURN({target}, {r}.NullableBytes({nullable_cond}));")
            else:
                out.append(f"{ind}FLOE_ASSIGN_OR_RETURN({target}, {r}.Bytes());")
        else:
            elem_read = {
                "[]int32": f"FLOE_ASSIGN_OR_RETURN(v[i], {r}.Int32());",
                "[]string": f"FLOE_ASSIGN_OR_RETURN(v[i], {r}.String());",
            }.get(t, f"FLOE_RETURN_IF_ERROR(v[i].Read({r}, version));")
            out.append(f"{ind}{{")
            out.append(f"{ind}  FLOE_ASSIGN_OR_RETURN(int32_t n, {r}.ArrayLength());")
            out.append(f"{ind}  if (n < 0) {{")
            if f.nullable:
                out.append(f"{ind}    if (!({nullable_cond})) return {r}.NullError(\"{f.name}\");")
                out.append(f"{ind}    {target}.reset();")
            else:
                out.append(f"{ind}    return {r}.NullError(\"{f.name}\");")
            out.append(f"{ind}  }} else {{")
            vec = f"{target}.emplace()" if f.nullable else target
            out.append(f"{ind}    auto& v = {vec};")
            out.append(f"{ind}    v.resize(static_cast<size_t>(n));")
            out.append(f"{ind}    for (size_t i = 0; i < v.size(); ++i) {{")
            out.append(f"{ind}      {elem_read}")
            out.append(f"{ind}    }}")
            out.append(f"{ind}  }}")
            out.append(f"{ind}}}")

    def read_fn(self, qual, fields, msg):
        cc = self.cc
        cc.append(f"Status {qual}::Read(KafkaReader& r, int16_t version) {{")
        for f in fields:
            if f.tag is not None:
                continue
            cond = in_range("version", f.vmin, f.vmax, msg.vmax)
            cc.append(f"  if ({cond}) {{")
            self.read_value(f, snake(f.name), msg, cc, "    ")
            cc.append("  }")
        tagged = [f for f in fields if f.tag is not None]
        cc.append("  if (r.flexible()) {")
        cc.append("    FLOE_ASSIGN_OR_RETURN(uint32_t tags, r.UVarint());")
        cc.append("    for (uint32_t t = 0; t < tags; ++t) {")
        cc.append("      FLOE_ASSIGN_OR_RETURN(uint32_t tag, r.UVarint());")
        cc.append("      FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> payload, r.TaggedPayload());")
        for f in tagged:
            cond = in_range("version", f.vmin, f.vmax, msg.vmax)
            cc.append(f"      if (tag == {f.tag} && {cond}) {{")
            cc.append("        KafkaReader sub(payload, true);")
            cc.append("        {")
            self.read_value(f, snake(f.name), msg, cc, "          ", r="sub")
            cc.append("        }")
            cc.append("      }")
        if not tagged:
            cc.append("      (void)tag;")
            cc.append("      (void)payload;")
        cc.append("    }")
        cc.append("  }")
        cc.append("  return Status::OK();")
        cc.append("}")
        cc.append("")

    # --- writing -------------------------------------------------------------------------
    def write_value(self, f, src, msg, out, ind, w="w"):
        t = f.type
        nullable_cond = in_range("version", f.null_min, f.null_max, msg.vmax) \
            if f.nullable else "false"
        if t in SCALARS:
            fn = "WriteUuid" if t == "uuid" else SCALARS[t][1]
            out.append(f"{ind}{w}.{fn}({src});")
        elif t == "string":
            if f.nullable:
                out.append(f"{ind}{w}.NullableString({src}, {nullable_cond});")
            else:
                out.append(f"{ind}{w}.String({src});")
        elif t in ("bytes", "records"):
            if f.nullable:
                out.append(f"{ind}{w}.NullableBytes({src}, {nullable_cond});")
            else:
                out.append(f"{ind}{w}.Bytes({src});")
        else:
            elem_write = {
                "[]int32": f"{w}.Int32(e);",
                "[]string": f"{w}.String(e);",
            }.get(t, f"e.Write({w}, version);")
            out.append(f"{ind}{{")
            if f.nullable:
                out.append(f"{ind}  if (!{src}.has_value() && ({nullable_cond})) {{")
                out.append(f"{ind}    {w}.NullArray();")
                out.append(f"{ind}  }} else if (!{src}.has_value()) {{")
                out.append(f"{ind}    {w}.ArrayLength(0);")
                out.append(f"{ind}  }} else {{")
                out.append(f"{ind}    {w}.ArrayLength({src}->size());")
                out.append(f"{ind}    for (const auto& e : *{src}) {elem_write}")
                out.append(f"{ind}  }}")
            else:
                out.append(f"{ind}  {w}.ArrayLength({src}.size());")
                out.append(f"{ind}  for (const auto& e : {src}) {elem_write}")
            out.append(f"{ind}}}")

    def write_fn(self, qual, fields, msg):
        cc = self.cc
        cc.append(f"void {qual}::Write(KafkaWriter& w, int16_t version) const {{")
        cc.append("  (void)version;")
        for f in fields:
            if f.tag is not None:
                continue
            cond = in_range("version", f.vmin, f.vmax, msg.vmax)
            cc.append(f"  if ({cond}) {{")
            self.write_value(f, snake(f.name), msg, cc, "    ")
            cc.append("  }")
        tagged = [f for f in fields if f.tag is not None]
        cc.append("  if (w.flexible()) {")
        if not tagged:
            cc.append("    w.UVarint(0);")
        else:
            # A tagged field is sent only when it differs from its default.
            cc.append("    uint32_t tags = 0;")
            conds = []
            for f in tagged:
                vcond = in_range("version", f.vmin, f.vmax, msg.vmax)
                if f.type in SCALARS:
                    dflt = f.default if f.default is not None else SCALARS[f.type][2]
                    present = f"{snake(f.name)} != {dflt}"
                else:
                    present = f"{snake(f.name)}.has_value()" if f.nullable else \
                        f"!{snake(f.name)}.empty()"
                conds.append((f, f"({vcond}) && {present}"))
                cc.append(f"    if ({conds[-1][1]}) ++tags;")
            cc.append("    w.UVarint(tags);")
            for f, cond in conds:
                cc.append(f"    if ({cond}) {{")
                cc.append("      Buffer payload;")
                cc.append("      KafkaWriter tw(&payload, true);")
                self.write_value(f, snake(f.name), msg, cc, "      ", w="tw")
                cc.append(f"      w.UVarint({f.tag});")
                cc.append("      w.UVarint(static_cast<uint32_t>(payload.size()));")
                cc.append("      w.Raw(payload.span());")
                cc.append("    }")
        cc.append("  }")
        cc.append("}")
        cc.append("")


def main():
    src, out_dir = sys.argv[1], sys.argv[2]
    messages = parse(src)
    e = Emitter()
    apis = {}
    for m in messages:
        e.h.append(f"// {m.api} {m.kind}, API key {m.key}, versions {m.vmin}-{m.vmax}.")
        e.h.append(f"struct {m.cname} {{")
        e.h.append(f"  static constexpr int16_t kApiKey = {m.key};")
        e.h.append(f"  static constexpr int16_t kMinVersion = {m.vmin};")
        e.h.append(f"  static constexpr int16_t kMaxVersion = {m.vmax};")
        e.h.append(f"  static constexpr int16_t kFirstFlexibleVersion = {min(m.flex, 32767)};")
        e.h.append("  static bool IsFlexible(int16_t version) { return version >= kFirstFlexibleVersion; }")
        body_start = len(e.h)
        e.struct("Body_", m.fields, m, m.cname + "::Body_", 1)
        # Flatten: the top-level struct is the message itself (nested element structs stay
        # inside it). Rewrite the Body_ wrapper into the message's own members.
        apis[m.key] = (m.api, m.vmin, m.vmax, min(m.flex, 32767))
        e.h.append("};")
        e.h.append("")
    text_h = "\n".join(e.h)
    text_cc = "\n".join(e.cc)
    # Remove the Body_ indirection: fields of Body_ become members of the message.
    text_h = re.sub(r"\n  struct Body_ \{\n((?:  .*\n)*?)  \};\n\};",
                    lambda mo: "\n" + mo.group(1).replace("\n    ", "\n  ")
                    .replace("    ", "  ", 1) + "};", text_h)
    text_cc = text_cc.replace("::Body_::", "::")
    for m in messages:
        text_cc = text_cc.replace(f"{m.cname}::Body_", m.cname)
    header = f"""// Generated by src/floe/kafka/gen_messages.py from messages.def. Do not edit.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/kafka/protocol.h"

namespace floe::kafka {{

{text_h}
struct ApiInfo {{
  int16_t key;
  const char* name;
  int16_t min_version;
  int16_t max_version;
  int16_t first_flexible_version;
}};

// Every API the messages describe, ordered by key.
inline constexpr ApiInfo kApis[] = {{
""" + "".join(f"    {{{k}, \"{v[0]}\", {v[1]}, {v[2]}, {v[3]}}},\n"
              for k, v in sorted(apis.items())) + """};

// The API with this key, or null.
const ApiInfo* FindApi(int16_t key);

}  // namespace floe::kafka
"""
    source = f"""// Generated by src/floe/kafka/gen_messages.py from messages.def. Do not edit.
#include "floe/kafka/messages.h"

#include "floe/base/buffer.h"
#include "floe/base/macros.h"

namespace floe::kafka {{

{text_cc}
const ApiInfo* FindApi(int16_t key) {{
  for (const ApiInfo& api : kApis) {{
    if (api.key == key) return &api;
  }}
  return nullptr;
}}

}}  // namespace floe::kafka
"""
    os.makedirs(os.path.join(out_dir, "floe", "kafka"), exist_ok=True)
    for name, text in (("messages.h", header), ("messages.cc", source)):
        path = os.path.join(out_dir, "floe", "kafka", name)
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as fh:
                fh.write(text)


if __name__ == "__main__":
    main()
