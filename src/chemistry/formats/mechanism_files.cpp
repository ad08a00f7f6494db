// Mechanism files: which format a file is in, JSON and YAML text to documents, and the public
// read/parse/write functions of mechanism.hpp on top of the per-format code of this folder.

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/input_file.hpp"
#include "json_documents.hpp"

namespace foehn::chemistry {
namespace formats {
namespace {

using nlohmann::json;

// YAML aliases can repeat a subtree many times over ("billion laughs"): the converted document
// is capped, like the nesting, so a hostile file is an error and not a runaway allocation.
constexpr int max_document_depth = 64;
constexpr std::int64_t max_yaml_nodes = 10'000'000;

// A plain YAML scalar as the YAML 1.2 core schema reads it: null, boolean, integer, float,
// otherwise a string.
json plain_scalar(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  const char first = text[0];
  const bool numeric_start =
      (first >= '0' && first <= '9') || first == '-' || first == '+' || first == '.';
  if (!numeric_start) return text;
  std::int64_t integer = 0;
  const char* begin = text.data() + (first == '+' ? 1 : 0);
  const char* end = text.data() + text.size();
  const auto [integer_end, integer_error] = std::from_chars(begin, end, integer);
  if (integer_error == std::errc() && integer_end == end) return integer;
  const std::string lower = [&] {
    std::string l = text;
    for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return l;
  }();
  if (lower == ".inf" || lower == "+.inf") return std::numeric_limits<double>::infinity();
  if (lower == "-.inf") return -std::numeric_limits<double>::infinity();
  if (lower == ".nan") return std::numeric_limits<double>::quiet_NaN();
  char* parsed_end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &parsed_end);
  if (parsed_end == text.c_str() + text.size() && lower.find_first_of("xp") == std::string::npos &&
      lower.find("inf") == std::string::npos && lower.find("nan") == std::string::npos)
    return value;  // out of range (1e999) stays inf here and is refused as "not finite" later
  return text;
}

class YamlConverter {
 public:
  explicit YamlConverter(const std::string& source) : source_(source) {}

  json convert(const YAML::Node& node, int depth) {
    if (depth > max_document_depth)
      fail(ErrorCategory::invalid_input, source_, ": YAML nested deeper than ", max_document_depth,
           " levels");
    if (++nodes_ > max_yaml_nodes)
      fail(ErrorCategory::invalid_input, source_, ": YAML expands to more than ", max_yaml_nodes,
           " nodes (aliases repeated?)");
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return nullptr;
      case YAML::NodeType::Scalar:
        if (!is_json_text(node.Scalar()))
          fail(ErrorCategory::invalid_input, source_, ": line ", node.Mark().line + 1,
               ": a value is not valid UTF-8");
        // "!" is the tag of a quoted scalar: a string whatever it looks like.
        return node.Tag() == "!" ? json(node.Scalar()) : plain_scalar(node.Scalar());
      case YAML::NodeType::Sequence: {
        json list = json::array();
        for (const YAML::Node& child : node) list.push_back(convert(child, depth + 1));
        return list;
      }
      case YAML::NodeType::Map: {
        json object = json::object();
        for (const auto& entry : node) {
          if (!entry.first.IsScalar())
            fail(ErrorCategory::invalid_input, source_, ": line ", entry.first.Mark().line + 1,
                 ": a mapping key must be a plain string");
          const std::string key = entry.first.Scalar();
          if (!is_json_text(key))
            fail(ErrorCategory::invalid_input, source_, ": line ", entry.first.Mark().line + 1,
                 ": a key is not valid UTF-8");
          if (object.contains(key))
            fail(ErrorCategory::invalid_input, source_, ": line ", entry.first.Mark().line + 1,
                 ": key '", key, "' appears twice in one mapping");
          object[key] = convert(entry.second, depth + 1);
        }
        return object;
      }
    }
    return nullptr;
  }

 private:
  const std::string& source_;
  std::int64_t nodes_ = 0;
};

void emit(YAML::Emitter& out, const json& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, child] : value.items()) {
      out << YAML::Key << key << YAML::Value;
      emit(out, child);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const json& child : value) emit(out, child);
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    // Quoted where a plain scalar would read back as something else ("300", "true").
    const std::string& text = value.get_ref<const std::string&>();
    if (plain_scalar(text).is_string())
      out << text;
    else
      out << YAML::DoubleQuoted << text;
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.dump();  // numbers and booleans: JSON's shortest round-trip text
  }
}

bool is_openatmos_v1(const json& document) {
  return document.is_object() && document.contains("version");
}

// `from_yaml`: Foehn's schema requires 'reactants' and 'products' in YAML, where a file cut at a
// line boundary still parses (JSON cut short does not, so its documents may leave them out).
Mechanism mechanism_from_document(const json& document, const std::string& source, bool from_yaml) {
  if (is_openatmos_v1(document))  // v1 requires the lists in JSON too, as MICM does
    return mechanism_from_foehn_document(foehn_document_from_openatmos_v1(document, source), source,
                                         true);
  // Only the v1 schema has phases: such a document without its version is a v1 file cut short
  // (MICM's and Foehn's writers put 'version' last) or one that lost its version line.
  if (document.is_object() && document.contains("phases"))
    fail(ErrorCategory::invalid_input, source,
         ": field 'version' is missing, but 'phases' is an OpenAtmos v1 key: a v1 file needs its "
         "version (a file cut short before its last key reads so)");
  return mechanism_from_foehn_document(document, source, from_yaml);
}

std::string read_text(const std::filesystem::path& path) {
  require_regular_file(path, "mechanism file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCategory::io, path.string(), ": cannot open mechanism file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail(ErrorCategory::io, path.string(), ": cannot read mechanism file");
  return text.str();
}

}  // namespace

namespace {

// Counts nesting with nlohmann's SAX interface, building nothing (a callback on the DOM parser
// made reading 100 k species 50 times slower). A syntax error is left to json::parse to report.
class NestingDepth final : public nlohmann::json_sax<json> {
 public:
  bool too_deep = false;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool key(string_t&) override { return true; }
  bool start_object(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override { return leave(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool enter() {
    too_deep = ++depth_ > max_document_depth;
    return !too_deep;
  }
  bool leave() {
    --depth_;
    return true;
  }
  int depth_ = 0;
};

}  // namespace

json parse_json_text(std::string_view text, const std::string& source) {
  // nlohmann's parser keeps its own stack, but copying, comparing or writing a document recurses
  // per level: a file nested 1e5 levels deep crashed with a stack overflow after it parsed. The
  // same depth limit as for YAML, checked before the document is built.
  NestingDepth nesting;
  (void)json::sax_parse(text, &nesting, json::input_format_t::json, false);
  if (nesting.too_deep)
    fail(ErrorCategory::invalid_input, source, ": JSON nested deeper than ", max_document_depth,
         " levels");
  try {
    return json::parse(text);
  } catch (const json::exception& error) {  // parse_error, and out_of_range for 1e999
    // A file cut short (an interrupted copy) fails where its text ends: say so.
    const auto* parse_error = dynamic_cast<const json::parse_error*>(&error);
    const bool cut = parse_error != nullptr && parse_error->byte >= text.size();
    fail(ErrorCategory::invalid_input, source, ": not valid JSON",
         cut ? " (truncated: the text ends before the JSON does)" : "", ": ", error.what());
  }
}

json parse_yaml_text(std::string_view text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& error) {
    fail(ErrorCategory::invalid_input, source, ": not valid YAML: line ", error.mark.line + 1,
         ", column ", error.mark.column + 1, ": ", error.msg);
  }
  return YamlConverter(source).convert(root, 0);
}

std::string yaml_text(const json& document) {
  YAML::Emitter out;
  emit(out, document);
  return std::string(out.c_str()) + "\n";
}

}  // namespace formats

Mechanism parse_mechanism(std::string_view json_text, std::string_view source_name) {
  const std::string source(source_name);
  return formats::mechanism_from_document(formats::parse_json_text(json_text, source), source,
                                          false);
}

Mechanism parse_mechanism_yaml(std::string_view yaml_text, std::string_view source_name) {
  const std::string source(source_name);
  return formats::mechanism_from_document(formats::parse_yaml_text(yaml_text, source), source,
                                          true);
}

MechanismFormat mechanism_format_of(const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  if (extension == ".json") return MechanismFormat::foehn_json;  // or v1: the content decides
  if (extension == ".yaml" || extension == ".yml") return MechanismFormat::openatmos_v1_yaml;
  if (extension == ".def" || extension == ".eqn" || extension == ".kpp")
    return MechanismFormat::kpp;
  fail(ErrorCategory::invalid_input, path.string(),
       ": unknown mechanism format (extensions known: .json for Foehn's schema or OpenAtmos v1, "
       ".yaml/.yml for OpenAtmos v1, .def/.eqn/.kpp for KPP)");
}

Mechanism read_mechanism(const std::filesystem::path& path) {
  const MechanismFormat format = mechanism_format_of(path);
  const std::string text = formats::read_text(path);
  switch (format) {
    case MechanismFormat::openatmos_v1_yaml:
      return parse_mechanism_yaml(text, path.string());
    case MechanismFormat::kpp:
      return parse_kpp_mechanism(text, path.string(), path.parent_path());
    default:
      return parse_mechanism(text, path.string());
  }
}

std::string mechanism_to_openatmos_v1_json(const Mechanism& mechanism) {
  return formats::openatmos_v1_document(mechanism).dump(2, ' ', false,
                                                        nlohmann::json::error_handler_t::replace);
}

std::string mechanism_to_openatmos_v1_yaml(const Mechanism& mechanism) {
  return formats::yaml_text(formats::openatmos_v1_document(mechanism));
}

}  // namespace foehn::chemistry
