#!/usr/bin/env python3
"""Generates floe's Parquet Thrift structs from parquet_thrift.def.

Usage: gen_parquet_thrift.py parquet_thrift.def out_dir
Writes, under out_dir/floe/format/parquet/:
  parquet_thrift.h       the enums, structs and unions, EnumName(), <Union>KindName(), and
                         Deserialize()/Serialize() for the `top` structs
  parquet_thrift.cc      compact-protocol readers (unknown fields skipped, required fields
                         checked) and writers (fields in id order)
  parquet_thrift_json.inc  WriteJson() for the `json` structs and all they reach, included
                         by metadata_json.cc, which supplies JsonContext, WriteEnum and the
                         Json<Hook> functions
The grammar is described at the top of parquet_thrift.def.
"""
import os
import re
import sys

DEF_NAME = "parquet_thrift.def"
SCALARS = {  # def type -> (C++ type, wire type, CompactWriter field method, reader method)
    "bool": ("bool", "kBoolTrue", "WriteFieldBool", None),
    "i8": ("int8_t", "kI8", "WriteFieldI8", "ReadI8"),
    "i16": ("int16_t", "kI16", "WriteFieldI16", "ReadI16"),
    "i32": ("int32_t", "kI32", "WriteFieldI32", "ReadI32"),
    "i64": ("int64_t", "kI64", "WriteFieldI64", "ReadI64"),
    "binary": ("std::string", "kBinary", "WriteFieldBinary", None),
    "opaque": ("std::string", "kStruct", None, None),
}
# Structs whose in-memory size may far exceed their minimal encoding grow as they parse.
MAX_STRUCT_RESERVE = 1024


def die(line_no, msg):
    sys.exit(f"{DEF_NAME}:{line_no}: {msg}")


def pascal(spelling):
    return "".join(w[:1].upper() + w[1:].lower() for w in spelling.split("_"))


class Enum:
    def __init__(self, name, is_union, doc):
        self.name, self.is_union, self.doc = name, is_union, doc
        self.values = []  # (spelling, value, cpp name, comment)

    @property
    def underlying(self):
        return "int16_t" if self.is_union else "int32_t"

    def cpp_value(self, spelling, line_no):
        for s, _, cpp, _ in self.values:
            if s == spelling:
                return f"{self.name}::{cpp}"
        die(line_no, f"{self.name} has no value {spelling}")


class Field:
    def __init__(self, fid, name, required, type_, opts, comment, line):
        self.id, self.name, self.required, self.type = fid, name, required, type_
        self.default = opts.pop("default", None)
        self.idl = opts.pop("idl", name)
        self.json = opts.pop("json", name)
        if opts:
            die(line, f"unknown options {sorted(opts)}")
        self.comment, self.line = comment, line

    @property
    def optional(self):
        # An optional field with a default is stored as its value and always written.
        return not self.required and self.default is None


class Struct:
    def __init__(self, name, flags, opts, doc, line):
        self.name, self.doc, self.line = name, doc, line
        self.top, self.json_root = "top" in flags, "json" in flags
        self.idl = opts.get("idl", name)
        self.fields = []
        self.is_union = False


class Member:
    def __init__(self, fid, spelling, payload, factory, comment, line):
        self.id, self.spelling, self.comment, self.line = fid, spelling, comment, line
        self.payload = payload  # (C++ member name, struct name) or None
        self.factory = factory  # (name, [payload field names]) or None
        self.fields = []  # payload fields kept in the union struct itself

    @property
    def kind(self):
        return "k" + pascal(self.spelling)


class Union:
    def __init__(self, name, opts, doc, line):
        self.name, self.doc, self.line = name, doc, line
        self.default = opts.get("default")
        self.json_name = opts.get("json") == "name"
        self.members = []
        self.is_union = True
        self.top = self.json_root = False

    def inline_fields(self):
        """The payload fields stored in the union struct, first declaration of each name."""
        seen = {}
        for m in self.members:
            for f in m.fields:
                if f.name in seen:
                    if seen[f.name].type != f.type:
                        die(f.line, f"{f.name} declared with two types")
                else:
                    seen[f.name] = f
        return list(seen.values())


def split_comment(line):
    code, _, comment = line.partition("#")
    return code.rstrip(), comment.strip()


def parse_opts(words, line_no):
    flags, opts = [], {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            opts[k] = v
        else:
            flags.append(w)
    return flags, opts


def parse(path):
    items, doc = [], []
    current = member = None
    for line_no, raw in enumerate(open(path), 1):
        line = raw.rstrip("\n")
        stripped = line.strip()
        if stripped.startswith("##"):
            doc.append(stripped[2:].strip())
            continue
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        code, comment = split_comment(line)
        words = code.split()
        if indent == 0:
            kind, name = words[0], words[1]
            flags, opts = parse_opts(words[2:], line_no)
            if kind == "enum":
                current = Enum(name, "union" in flags, doc)
            elif kind == "struct":
                current = Struct(name, flags, opts, doc, line_no)
            elif kind == "union":
                current = Union(name, opts, doc, line_no)
            else:
                die(line_no, "expected enum, struct or union")
            items.append(current)
            doc, member = [], None
            continue
        if current is None:
            die(line_no, "indented line outside an item")
        if isinstance(current, Enum):
            flags, opts = parse_opts(words[2:], line_no)
            cpp = opts.get("cpp", "k" + pascal(words[0]))
            current.values.append((words[0], int(words[1]), cpp, comment))
        elif isinstance(current, Struct) or (isinstance(current, Union) and indent > 2):
            if len(words) < 4 or words[2] not in ("required", "optional"):
                die(line_no, "expected <id> <name> required|optional <type>")
            _, opts = parse_opts(words[4:], line_no)
            f = Field(int(words[0]), words[1], words[2] == "required", words[3], opts, comment,
                      line_no)
            if isinstance(current, Union):
                if member is None or f.required:
                    die(line_no, "union payload fields are optional and follow a member")
                member.fields.append(f)
            else:
                current.fields.append(f)
        else:
            payload = factory = None
            for w in words[2:]:
                if w.startswith("new="):
                    m = re.fullmatch(r"new=(\w+)\(([\w,]*)\)", w)
                    if not m:
                        die(line_no, f"bad factory {w}")
                    factory = (m.group(1), m.group(2).split(",") if m.group(2) else [])
                elif ":" in w:
                    payload = tuple(w.split(":", 1))
                else:
                    die(line_no, f"unexpected {w}")
            member = Member(int(words[0]), words[1], payload, factory, comment, line_no)
            current.members.append(member)
    return items


class Model:
    def __init__(self, items):
        self.items = items
        self.enums = {i.name: i for i in items if isinstance(i, Enum)}
        self.structs = {i.name: i for i in items if not isinstance(i, Enum)}
        self.check()

    def check(self):
        defined = set()
        for item in self.items:
            if isinstance(item, Enum):
                defined.add(item.name)
                continue
            fields = item.inline_fields() if item.is_union else item.fields
            deps = [f.type for f in fields]
            if item.is_union:
                deps += [m.payload[1] for m in item.members if m.payload]
            for t in deps:
                base = self.element(t) if t.startswith("list<") else t
                if base not in SCALARS and base not in defined:
                    die(item.line, f"{item.name} uses {base} before it is defined")
            if not item.is_union:
                ids = [f.id for f in item.fields]
                if ids != sorted(set(ids)) or (ids and ids[-1] > 31):
                    die(item.line, f"{item.name}: field ids must ascend and stay below 32")
            defined.add(item.name)

    @staticmethod
    def element(t):
        m = re.fullmatch(r"list<(.+)>", t)
        return m.group(1) if m else None

    def kind(self, t):
        if t.startswith("list<"):
            return "list"
        if t in SCALARS:
            return t
        if t in self.enums:
            return "union_enum" if self.enums[t].is_union else "enum"
        return "union" if self.structs[t].is_union else "struct"

    def cpp_type(self, t):
        if t.startswith("list<"):
            return f"std::vector<{self.cpp_type(self.element(t))}>"
        return SCALARS[t][0] if t in SCALARS else t

    def wire(self, t):
        k = self.kind(t)
        if k == "list":
            return "kList"
        if k in SCALARS:
            return SCALARS[k][1]
        return "kI32" if k == "enum" else "kStruct"

    def default_init(self, f):
        k = self.kind(f.type)
        if f.default is not None:
            if k in ("enum", "union_enum"):
                return self.enums[f.type].cpp_value(f.default, f.line)
            return f.default
        if f.optional or k in ("list", "binary", "opaque", "struct", "union"):
            return None
        if k == "bool":
            return "false"
        if k in ("enum", "union_enum"):
            return f"{f.type}::{self.enums[f.type].values[0][2]}"
        return "0"

    def member_decl(self, f):
        t = self.cpp_type(f.type)
        if f.optional:
            t = f"std::optional<{t}>"
        init = self.default_init(f)
        return f"{t} {f.name}" + (f" = {init};" if init else ";")

    def list_types(self):
        """Every list type a struct uses, in first-use order."""
        out = []
        for item in self.items:
            if isinstance(item, Enum):
                continue
            fields = item.inline_fields() if item.is_union else item.fields
            for f in fields:
                if f.type.startswith("list<") and f.type not in out:
                    out.append(f.type)
        return out

    def json_structs(self):
        """Structs and unions reachable from the `json` structs, in definition order; those
        whose keys are merged into another object; those written as an object of their own."""
        reach, inlined, whole = [], set(), set()

        def visit(name):
            if name in reach:
                return
            reach.append(name)
            s = self.structs[name]
            fields = s.inline_fields() if s.is_union else s.fields
            for f in fields:
                if f.json == "-":
                    continue
                base = self.element(f.type) or f.type
                if base in self.structs:
                    (inlined if f.json == "inline" else whole).add(base)
                    visit(base)
            if s.is_union:
                for m in s.members:
                    if m.payload:
                        inlined.add(m.payload[1])
                        visit(m.payload[1])

        for item in self.items:
            if getattr(item, "json_root", False):
                whole.add(item.name)
                visit(item.name)
        return [n for n in (i.name for i in self.items) if n in reach], inlined, whole


# ---- parquet_thrift.h

def comment_lines(doc, indent=""):
    return [f"{indent}// {d}".rstrip() for d in doc]


def aligned(decls, indent="  "):
    """Lines `decl  // comment`, comments aligned as clang-format would."""
    width = max((len(d) for d, c in decls if c), default=0)
    out = []
    for d, c in decls:
        out.append(f"{indent}{d}" + (" " * (width - len(d)) + f"  // {c}" if c else ""))
    return out


def field_comment(f):
    return f"{f.id}" + (f", {f.comment}" if f.comment else "")


def gen_header(model):
    out = []
    for item in model.items:
        out.append("")
        out += comment_lines(item.doc)
        if isinstance(item, Enum):
            out.append(f"enum class {item.name} : {item.underlying} {{")
            out += aligned([(f"{cpp} = {v},", c) for _, v, cpp, c in item.values])
            out.append("};")
        elif item.is_union:
            out += gen_union_decl(model, item)
        else:
            out.append(f"struct {item.name} {{")
            out += aligned([(model.member_decl(f), field_comment(f)) for f in item.fields])
            if item.fields:
                out.append("")
            out.append(f"  bool operator==(const {item.name}&) const = default;")
            out.append("};")
    enum_names = "\n".join(f"std::string_view EnumName({e} v);" for e in model.enums)
    kind_names = "\n".join(
        f"// \"{u.members[0].spelling}\", ...; \"unrecognized\" for kUnrecognized.\n"
        f"std::string_view {u.name}KindName({u.name}::Kind kind);"
        for u in model.structs.values() if u.is_union)
    tops = [s.name for s in model.structs.values() if s.top]
    deser = "\n".join(
        f"Status Deserialize(std::span<const uint8_t> bytes, {t}* out, size_t* consumed = nullptr,\n"
        f"                   const thrift::ReaderLimits& limits = {{}});" for t in tops)
    ser = "\n".join(f"void Serialize(const {t}& v, Buffer* out);" for t in tops)
    return f"""// Generated by src/floe/format/parquet/gen_parquet_thrift.py from {DEF_NAME}. Do not edit.
// Included through floe/format/parquet/metadata.h, which documents the conventions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/format/thrift/compact.h"

namespace floe::format::parquet {{

// A union member this code does not know, kept encoded so that it is written back unchanged.
// type kStop means the union had no member at all.
struct RawUnionMember {{
  int16_t field_id = 0;
  thrift::WireType type = thrift::WireType::kStop;
  std::string value;  // the member's encoded value (a struct: its fields and STOP)

  bool operator==(const RawUnionMember&) const = default;
}};
{chr(10).join(out)}

// The Parquet spelling of an enum value ("INT32", "RLE_DICTIONARY", "SNAPPY", "MICROS"),
// or an empty view for a value this code does not know.
{enum_names}

// EnumName(v), or the value as a decimal integer when it has no name.
template <typename E>
std::string EnumToString(E v) {{
  std::string_view name = EnumName(v);
  return name.empty() ? std::to_string(static_cast<int64_t>(v)) : std::string(name);
}}

{kind_names}

// Deserialize parses one struct from the start of `bytes` into `*out` (which is reset first)
// and sets `*consumed` (if not null) to the bytes it used; bytes after the struct, such as
// a page body after its PageHeader, are not looked at. Returns kCorrupt for malformed or
// truncated input, limits exceeded, or a required field missing.
{deser}

// Serialize appends the struct's compact encoding to `out`.
{ser}

}}  // namespace floe::format::parquet
"""


def gen_union_decl(model, u):
    out = [f"struct {u.name} {{",
           "  // The union members, in field id order; kUnrecognized is a member this code does",
           "  // not know, kept in `unrecognized`.",
           "  enum class Kind : uint8_t {"]
    out += aligned([(f"{m.kind},", f"{m.id}" + (f": {m.comment}" if m.comment else ""))
                    for m in u.members] + [("kUnrecognized,", None)], "    ")
    out.append("  };")
    out.append("")
    default = f"Kind::k{pascal(u.default)}" if u.default else "Kind::kUnrecognized"
    decls = [(f"Kind kind = {default};", None)]
    payloads = {}
    for m in u.members:
        if m.payload:
            payloads.setdefault(m.payload, []).append(m.kind)
    for (name, struct), kinds in payloads.items():
        decls.append((f"{struct} {name};", ", ".join(kinds)))
    for f in u.inline_fields():
        kinds = [m.kind for m in u.members if any(g.name == f.name for g in m.fields)]
        decls.append((model.member_decl(f), ", ".join(kinds)))
    decls.append(("RawUnionMember unrecognized;", "kUnrecognized"))
    out += aligned(decls)
    out += ["",
            f"  static {u.name} Of(Kind kind) {{",
            f"    {u.name} t;",
            "    t.kind = kind;",
            "    return t;",
            "  }"]
    for m in u.members:
        if not m.factory:
            continue
        name, args = m.factory
        payload = model.structs[m.payload[1]]
        params = []
        for a in args:
            f = next((f for f in payload.fields if f.name == a), None)
            if f is None:
                die(m.line, f"{payload.name} has no field {a}")
            params.append(f"{model.cpp_type(f.type)} {a}")
        out.append(f"  static {u.name} {name}({', '.join(params)}) {{")
        out.append(f"    {u.name} t = Of(Kind::{m.kind});")
        for a in args:
            out.append(f"    t.{m.payload[0]}.{a} = {a};")
        out.append("    return t;")
        out.append("  }")
    out.append("")
    out.append(f"  bool operator==(const {u.name}&) const = default;")
    out.append("};")
    return out


# ---- parquet_thrift.cc

def read_value(model, t, lhs):
    """Statements reading one value of type `t` (wire type already checked) into `lhs`."""
    k = model.kind(t)
    if k in ("i8", "i16", "i32", "i64"):
        return [f"FLOE_ASSIGN_OR_RETURN({lhs}, r.{SCALARS[k][3]}());"]
    if k == "binary":
        return [f"FLOE_RETURN_IF_ERROR(r.ReadString(&{lhs}));"]
    if k == "enum":
        # Any i32 is kept: unknown values fail only where they are used (parquet.md §2.5).
        return ["FLOE_ASSIGN_OR_RETURN(int32_t v, r.ReadI32());", f"{lhs} = static_cast<{t}>(v);"]
    if k == "union_enum":
        return [f"FLOE_RETURN_IF_ERROR(ReadMemberIdUnion(r, &{lhs}));"]
    if k == "list":
        return [f"FLOE_RETURN_IF_ERROR(ReadList(r, &{lhs}));"]
    return [f"FLOE_RETURN_IF_ERROR(ReadValue(r, &{lhs}));"]


def read_cases(model, fields, target, h="h"):
    out = []
    for f in fields:
        lhs = f"{target}->{f.name}" + (".emplace()" if f.optional else "")
        k = model.kind(f.type)
        check = (f"!thrift::IsBool({h}.type)" if k == "bool"
                 else f"{h}.type != WireType::{model.wire(f.type)}")
        out.append(f"      case {f.id}: {{")
        # A field of another wire type is skipped, as Thrift-generated readers do (a required
        # field then reports as missing).
        out.append(f"        if ({check}) return r.Skip({h}.type);")
        if k == "bool":
            out.append(f"        {lhs} = {h}.bool_value();")
        elif k == "opaque":
            out.append(f"        FLOE_RETURN_IF_ERROR(ReadOpaqueStruct(r, &{lhs}));")
        else:
            out += ["        " + s for s in read_value(model, f.type, lhs)]
        if f.required:
            out.append(f"        seen |= 1u << {f.id};")
        out.append("        return Status::OK();")
        out.append("      }")
    return out


def gen_struct_reader(model, name, idl, fields, fn_name="ReadValue", target_type=None):
    target_type = target_type or name
    out_param = "out" if fields else "/*out*/"
    out = [f"Status {fn_name}(CompactReader& r, {target_type}* {out_param}) {{"]
    required = [f for f in fields if f.required]
    if required:
        out.append("  uint32_t seen = 0;")
    loop = ["r.ReadStruct([&](const FieldHeader& h) -> Status {"]
    if fields:
        loop += ["    switch (h.id) {"] + read_cases(model, fields, "out") + [
            "      default: return r.Skip(h.type);", "    }"]
    else:
        loop += ["    return r.Skip(h.type);"]
    loop.append("  })")
    if required:
        out.append("  FLOE_RETURN_IF_ERROR(" + "\n".join(loop) + ");")
        for f in required:
            out.append(f"  if ((seen & (1u << {f.id})) == 0) "
                       f"return MissingField(\"{idl}\", \"{f.idl}\", {f.id});")
        out.append("  return Status::OK();")
    else:
        out.append("  return " + "\n".join(loop) + ";")
    out.append("}")
    return out


def gen_union_reader(model, u):
    out = []
    for m in u.members:
        if m.fields:
            out += gen_struct_reader(model, u.name, f"{u.name} {m.spelling}", m.fields,
                                     f"Read{u.name}{pascal(m.spelling)}", u.name)
            out.append("")
    out += [f"Status ReadValue(CompactReader& r, {u.name}* out) {{",
            f"  using K = {u.name}::Kind;",
            "  // A union: the last member present wins, replacing whatever an earlier one set.",
            "  // Members with empty payloads skip theirs, so fields added to them later are",
            "  // ignored.",
            "  return r.ReadStruct([&](const FieldHeader& h) -> Status {",
            f"    *out = {u.name}{{}};",
            "    if (h.type == WireType::kStruct) {",
            "      switch (h.id) {"]
    for m in u.members:
        if m.payload:
            read = f"return ReadValue(r, &out->{m.payload[0]});"
        elif m.fields:
            read = f"return Read{u.name}{pascal(m.spelling)}(r, out);"
        else:
            read = "return r.Skip(h.type);"
        out.append(f"        case {m.id}: out->kind = K::{m.kind}; {read}")
    out += ["        default: break;",
            "      }",
            "    }",
            "    out->kind = K::kUnrecognized;",
            "    return ReadUnrecognized(r, h, &out->unrecognized);",
            "  });",
            "}"]
    return out


def write_field(model, f, v):
    """Statements writing field `f` whose value is the expression `v`."""
    k = model.kind(f.type)
    if k == "opaque":
        return [f"WriteOpaqueStruct(w, {f.id}, {v});"]
    if k in SCALARS:
        return [f"w.{SCALARS[k][2]}({f.id}, {v});"]
    if k == "enum":
        return [f"w.WriteFieldI32({f.id}, static_cast<int32_t>({v}));"]
    head = f"w.WriteFieldHeader({f.id}, WireType::{model.wire(f.type)});"
    if k == "union_enum":
        return [head, f"WriteMemberIdUnion(w, static_cast<int16_t>({v}));"]
    if k == "list":
        return [head, f"WriteList(w, {v});"]
    return [head, f"WriteValue(w, {v});"]


def write_fields(model, fields, target, indent="  "):
    out = []
    for f in fields:
        v = f"{target}.{f.name}"
        if f.optional:
            body = write_field(model, f, f"*{v}")
            if len(body) == 1:
                out.append(f"{indent}if ({v}) {body[0]}")
            else:
                out.append(f"{indent}if ({v}) {{")
                out += [f"{indent}  {s}" for s in body]
                out.append(f"{indent}}}")
        else:
            out += [f"{indent}{s}" for s in write_field(model, f, v)]
    return out


def gen_struct_writer(model, s):
    param = "v" if s.fields else "/*v*/"
    return ([f"void WriteValue(CompactWriter& w, const {s.name}& {param}) {{", "  w.BeginStruct();"]
            + write_fields(model, s.fields, "v") + ["  w.EndStruct();", "}"])


def gen_union_writer(model, u):
    out = [f"void WriteValue(CompactWriter& w, const {u.name}& v) {{",
           f"  using K = {u.name}::Kind;",
           "  w.BeginStruct();",
           "  switch (v.kind) {"]
    for m in u.members:
        out.append(f"    case K::{m.kind}:")
        out.append(f"      w.WriteFieldHeader({m.id}, WireType::kStruct);")
        if m.payload:
            out.append(f"      WriteValue(w, v.{m.payload[0]});")
        else:
            out.append("      w.BeginStruct();")
            out += write_fields(model, m.fields, "v", "      ")
            out.append("      w.EndStruct();")
        out.append("      break;")
    out += ["    case K::kUnrecognized: WriteRawMember(w, v.unrecognized); break;",
            "  }",
            "  w.EndStruct();",
            "}"]
    return out


def gen_list_codecs(model, t):
    e = model.element(t)
    k = model.kind(e)
    ct, et = model.cpp_type(t), model.cpp_type(e)
    wire = model.wire(e)
    check = ("!thrift::IsBool(h.element_type)" if k == "bool"
             else f"h.element_type != WireType::{wire}")
    reserve = (f"std::min<size_t>(h.size, {MAX_STRUCT_RESERVE})" if wire == "kStruct"
               else "h.size")
    if k == "bool":  # no references into a vector<bool>
        elem = ["FLOE_ASSIGN_OR_RETURN(bool b, r.ReadBoolElement());", "out->push_back(b);"]
    else:
        elem = read_value(model, e, "out->emplace_back()")
        if k == "enum":
            elem = ["FLOE_ASSIGN_OR_RETURN(int32_t v, r.ReadI32());",
                    f"out->push_back(static_cast<{e}>(v));"]
    if k == "bool":
        welem = "w.WriteBoolElement(e);"
    elif k in ("i8", "i16", "i32", "i64"):
        welem = f"w.Write{k.upper()}(e);"
    elif k == "binary":
        welem = "w.WriteBinary(std::string_view(e));"
    elif k == "enum":
        welem = "w.WriteI32(static_cast<int32_t>(e));"
    elif k == "union_enum":
        welem = "WriteMemberIdUnion(w, static_cast<int16_t>(e));"
    elif k == "list":
        welem = "WriteList(w, e);"
    else:
        welem = "WriteValue(w, e);"
    return [f"Status ReadList(CompactReader& r, {ct}* out) {{",
            "  FLOE_ASSIGN_OR_RETURN(ListHeader h, r.ReadListHeader());",
            f"  if (FLOE_PREDICT_FALSE({check})) {{",
            f"    return ListTypeMismatch(h.element_type, WireType::{wire});",
            "  }",
            "  out->clear();",
            f"  out->reserve({reserve});",
            "  for (uint32_t i = 0; i < h.size; ++i) {"
            ] + ["    " + s for s in elem] + [
            "  }",
            "  return Status::OK();",
            "}",
            "",
            f"void WriteList(CompactWriter& w, const {ct}& v) {{",
            f"  w.WriteListHeader(WireType::{wire}, v.size());",
            f"  for (const {'bool' if k == 'bool' else et}{'' if k == 'bool' else '&'} e : v) {welem}",
            "}"]


RUNTIME = r"""
// Reads a union of empty structs as its member's field id (0 if it has none).
template <typename E>
Status ReadMemberIdUnion(CompactReader& r, E* out) {
  int16_t member = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    if (h.type == WireType::kStruct) member = h.id;
    return r.Skip(h.type);
  }));
  *out = static_cast<E>(member);
  return Status::OK();
}

// Keeps a struct-typed field as its encoded bytes (encryption metadata floe does not parse).
Status ReadOpaqueStruct(CompactReader& r, std::string* out) {
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> raw, r.SkipAndCapture(WireType::kStruct));
  out->assign(reinterpret_cast<const char*>(raw.data()), raw.size());
  return Status::OK();
}

// Keeps a union member this code does not know, so that it is written back unchanged.
Status ReadUnrecognized(CompactReader& r, const FieldHeader& h, RawUnionMember* out) {
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> raw, r.SkipAndCapture(h.type));
  out->field_id = h.id;
  out->type = h.type;
  out->value.assign(reinterpret_cast<const char*>(raw.data()), raw.size());
  return Status::OK();
}

Status MissingField(std::string_view struct_name, std::string_view field, int id) {
  return Status::Corrupt("parquet {}: required field '{}' ({}) is missing", struct_name, field,
                         id);
}

Status ListTypeMismatch(WireType actual, WireType expected) {
  return Status::Corrupt("parquet: list of {} where {} elements belong",
                         thrift::WireTypeName(actual), thrift::WireTypeName(expected));
}

void WriteEmptyStruct(CompactWriter& w) {
  w.BeginStruct();
  w.EndStruct();
}

// Writes member `id` of a union of empty structs; 0 writes an empty union.
void WriteMemberIdUnion(CompactWriter& w, int16_t id) {
  w.BeginStruct();
  if (id != 0) {
    w.WriteFieldHeader(id, WireType::kStruct);
    WriteEmptyStruct(w);
  }
  w.EndStruct();
}

void WriteRawMember(CompactWriter& w, const RawUnionMember& m) {
  if (m.type == WireType::kStop) return;
  if (thrift::IsBool(m.type)) {
    w.WriteFieldBool(m.field_id, m.type == WireType::kBoolTrue);
    return;
  }
  w.WriteFieldHeader(m.field_id, m.type);
  // An empty struct payload set by hand still needs its STOP.
  if (m.type == WireType::kStruct && m.value.empty()) {
    WriteEmptyStruct(w);
  } else {
    w.WriteRaw(m.value);
  }
}

void WriteOpaqueStruct(CompactWriter& w, int16_t id, const std::string& v) {
  w.WriteFieldHeader(id, WireType::kStruct);
  if (v.empty()) {
    WriteEmptyStruct(w);
  } else {
    w.WriteRaw(v);
  }
}
"""


def gen_source(model):
    structs = [s for s in model.structs.values()]
    decls = [f"Status ReadValue(CompactReader& r, {s.name}* out);" for s in structs]
    decls += [f"void WriteValue(CompactWriter& w, const {s.name}& v);" for s in structs]
    decls += [f"Status ReadList(CompactReader& r, {model.cpp_type(t)}* out);"
              for t in model.list_types()]
    decls += [f"void WriteList(CompactWriter& w, const {model.cpp_type(t)}& v);"
              for t in model.list_types()]
    body = []
    for t in model.list_types():
        body += gen_list_codecs(model, t) + [""]
    for s in structs:
        if s.is_union:
            body += gen_union_reader(model, s) + [""] + gen_union_writer(model, s) + [""]
        else:
            body += gen_struct_reader(model, s.name, s.idl, s.fields) + [""]
            body += gen_struct_writer(model, s) + [""]
    enum_names = []
    for e in model.enums.values():
        enum_names += [f"std::string_view EnumName({e.name} v) {{", "  switch (v) {"]
        enum_names += [f"    case {e.name}::{cpp}: return \"{s}\";" for s, _, cpp, _ in e.values]
        enum_names += ["  }", "  return {};", "}", ""]
    for u in (s for s in structs if s.is_union):
        enum_names += [f"std::string_view {u.name}KindName({u.name}::Kind kind) {{",
                       "  switch (kind) {"]
        enum_names += [f"    case {u.name}::Kind::{m.kind}: return \"{m.spelling}\";"
                       for m in u.members]
        enum_names += [f"    case {u.name}::Kind::kUnrecognized: return \"unrecognized\";",
                       "  }", "  return \"unrecognized\";", "}", ""]
    api = []
    for s in (s for s in structs if s.top):
        api += [f"Status Deserialize(std::span<const uint8_t> bytes, {s.name}* out, "
                "size_t* consumed,",
                "                   const thrift::ReaderLimits& limits) {",
                f"  *out = {s.name}{{}};",
                "  CompactReader r(bytes, limits);",
                "  FLOE_RETURN_IF_ERROR(ReadValue(r, out));",
                "  if (consumed != nullptr) *consumed = r.position();",
                "  return Status::OK();",
                "}",
                "",
                f"void Serialize(const {s.name}& v, Buffer* out) {{",
                "  CompactWriter w(out);",
                "  WriteValue(w, v);",
                "}",
                ""]
    nl = "\n"
    return f"""// Generated by src/floe/format/parquet/gen_parquet_thrift.py from {DEF_NAME}. Do not edit.
#include "floe/format/parquet/parquet_thrift.h"

#include <algorithm>

#include "floe/base/macros.h"

namespace floe::format::parquet {{

{nl.join(enum_names)}
namespace {{

using thrift::CompactReader;
using thrift::CompactWriter;
using thrift::FieldHeader;
using thrift::ListHeader;
using thrift::WireType;
{RUNTIME}
{nl.join(decls)}

{nl.join(body)}
}}  // namespace

{nl.join(api)}
}}  // namespace floe::format::parquet
"""


# ---- parquet_thrift_json.inc

def json_value(model, t, v, hook_parent=None):
    k = model.kind(t)
    if k in ("i8", "i16", "i32", "i64"):
        return [f"j.Int({v});"]
    if k == "bool":
        return [f"j.Bool({v});"]
    if k == "binary":
        return [f"j.String({v});"]
    if k == "opaque":
        return ["j.Bool(true);"]  # present, not shown
    if k in ("enum", "union_enum"):
        return [f"WriteEnum(j, {v});"]
    if k == "list":
        e = model.element(t)
        return (["j.BeginArray();", f"for (const auto& e : {v}) {{"]
                + ["  " + s for s in json_value(model, e, "e")] + ["}", "j.EndArray();"])
    return [f"WriteJson(j, {v}, ctx);"]


def json_fields(model, fields, target, hooks, parent, indent="  "):
    out = []
    for f in fields:
        if f.json == "-":
            continue
        v = f"{target}.{f.name}"
        val = f"*{v}" if f.optional else v
        if f.json == "inline":
            body = [f"WriteJsonFields(j, {val}, ctx);"]
        else:
            if f.json.startswith("@"):
                hook = f"Json{f.json[1:]}"
                hooks.setdefault(hook, (parent, model.cpp_type(f.type)))
                write = [f"{hook}(j, {target}, {val}, ctx);"]
            else:
                write = json_value(model, f.type, val)
            key = f.json if not f.json.startswith("@") else f.name
            body = [f"j.Key(\"{key}\");"] + write
        if f.optional:
            out.append(f"{indent}if ({v}) {{")
            out += [f"{indent}  {s}" for s in body]
            out.append(f"{indent}}}")
        else:
            out += [f"{indent}{s}" for s in body]
    return out


def gen_json(model):
    names, inlined, whole = model.json_structs()
    decls, body, hooks = [], [], {}
    ctx = "JsonContext& ctx"
    for n in names:
        s = model.structs[n]
        if s.is_union:
            decls.append(f"void WriteJson(JsonWriter& j, const {n}& v, {ctx});")
            if s.json_name:
                body += [f"void WriteJson(JsonWriter& j, const {n}& v, {ctx}) {{",
                         f"  j.String({n}KindName(v.kind));", "}", ""]
                continue
            body += [f"void WriteJson(JsonWriter& j, const {n}& v, {ctx}) {{",
                     f"  using K = {n}::Kind;",
                     "  j.BeginObject();",
                     "  j.Key(\"type\");",
                     f"  j.String({n}KindName(v.kind));",
                     "  switch (v.kind) {"]
            for m in s.members:
                if m.payload:
                    body += [f"    case K::{m.kind}:",
                             f"      WriteJsonFields(j, v.{m.payload[0]}, ctx);", "      break;"]
                elif m.fields:
                    body += [f"    case K::{m.kind}:"]
                    body += json_fields(model, m.fields, "v", hooks, n, "      ")
                    body += ["      break;"]
            body += ["    case K::kUnrecognized:",
                     "      j.Key(\"field_id\");",
                     "      j.Int(v.unrecognized.field_id);",
                     "      break;",
                     "    default: break;",
                     "  }",
                     "  j.EndObject();",
                     "}",
                     ""]
            continue
        param = "v" if any(f.json != "-" for f in s.fields) else "/*v*/"
        if n in inlined:
            decls.append(f"void WriteJsonFields(JsonWriter& j, const {n}& v, {ctx});")
            body += [f"void WriteJsonFields(JsonWriter& j, const {n}& {param}, {ctx}) {{"]
            body += json_fields(model, s.fields, "v", hooks, n) + ["}", ""]
        if n not in whole:
            continue
        decls.append(f"void WriteJson(JsonWriter& j, const {n}& v, {ctx});")
        body += [f"void WriteJson(JsonWriter& j, const {n}& {param}, {ctx}) {{",
                 "  j.BeginObject();"]
        if n in inlined:
            body.append("  WriteJsonFields(j, v, ctx);")
        else:
            body += json_fields(model, s.fields, "v", hooks, n)
        body += ["  j.EndObject();", "}", ""]
    hook_decls = [f"void {h}(JsonWriter& j, const {p}& parent, const {t}& v, JsonContext& ctx);"
                  for h, (p, t) in hooks.items()]
    nl = "\n"
    return f"""// Generated by src/floe/format/parquet/gen_parquet_thrift.py from {DEF_NAME}. Do not edit.
// JSON writers for the footer, textually included by metadata_json.cc inside its anonymous
// namespace after it defines JsonContext and WriteEnum; it defines the Json<Hook> functions.

{nl.join(hook_decls)}

{nl.join(decls)}

{nl.join(body)}"""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model = Model(parse(sys.argv[1]))
    out_dir = os.path.join(sys.argv[2], "floe", "format", "parquet")
    os.makedirs(out_dir, exist_ok=True)
    for name, text in (("parquet_thrift.h", gen_header(model)),
                       ("parquet_thrift.cc", gen_source(model)),
                       ("parquet_thrift_json.inc", gen_json(model))):
        path = os.path.join(out_dir, name)
        # Rewrite only on change, so that an edit to the generator alone rebuilds little.
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as f:
                f.write(text)


if __name__ == "__main__":
    main()
