// YAML options, checked before PETSc's YAML reader (optionsyaml.c: PetscParseLayerYAML) sees
// them. That reader recurses per nested map and per merge key ("<<") with no bound and no
// memory of where it has been, so a merge key or alias that refers to a map containing it
// recursed until the stack overflowed, and `$$name: !include file` includes another file,
// itself included. Its parser (libyaml) took 318 s to refuse 200,000 nested maps. Here a cheap
// scan bounds the nesting first; then yaml-cpp parses the text and the walk below visits what
// PETSc would visit, in its order, following each !include through the same file checks.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "options_files.hpp"
#include "options_guard.hpp"

namespace foehn::app::detail {

namespace {

[[noreturn]] void refuse(const std::string& message) {
  throw Refusal(message);
}

bool starts_with(const std::string& text, const char* prefix) {
  return text.rfind(prefix, 0) == 0;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// An upper bound of how deeply `text` nests YAML collections, read in one pass before any
// parser recurses: flow brackets opened and not yet closed (outside quoted scalars and
// comments), plus block levels (distinct indentations on the way in, and compact "- " / "? "
// indicators). Stops as soon as the bound is passed.
int nesting_estimate(const std::string& text, int bound) {
  int flow = 0, deepest = 0, block = 0;
  bool in_single = false, in_double = false;
  std::vector<std::size_t> indents;
  std::size_t block_scalar_parent = std::string::npos;  // inside "key: |" below that column
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    std::size_t p = line.find_first_not_of(' ');
    const std::size_t column = p == std::string::npos ? line.size() : p;
    if (block_scalar_parent != std::string::npos) {
      if (p == std::string::npos || column > block_scalar_parent) continue;
      block_scalar_parent = std::string::npos;
    }
    if (p == std::string::npos) continue;
    if (!in_single && !in_double && flow == 0) {
      if (line[p] == '#') continue;
      if (column == 0 && (starts_with(line, "---") || starts_with(line, "..."))) indents.clear();
      while (!indents.empty() && indents.back() > column) indents.pop_back();
      if (indents.empty() || indents.back() < column) indents.push_back(column);
      int compact = 0;
      while (p < line.size() && (line[p] == '-' || line[p] == '?') &&
             (p + 1 == line.size() || line[p + 1] == ' ')) {
        ++compact;
        p = line.find_first_not_of(' ', p + 1);
        if (p == std::string::npos) p = line.size();
      }
      block = static_cast<int>(indents.size()) + compact;
      deepest = std::max(deepest, block);
      if (deepest > bound) return deepest;
    } else {
      p = 0;
    }
    std::size_t last_content = std::string::npos;
    for (; p < line.size(); ++p) {
      const char c = line[p];
      if (in_double) {
        if (c == '\\')
          ++p;
        else if (c == '"')
          in_double = false;
        continue;
      }
      if (in_single) {
        if (c == '\'' && p + 1 < line.size() && line[p + 1] == '\'')
          ++p;
        else if (c == '\'')
          in_single = false;
        continue;
      }
      const char before = p == 0 ? ' ' : line[p - 1];
      const bool token_start =
          before == ' ' || before == '\t' ||
          (flow > 0 && (before == '[' || before == '{' || before == ',' || before == ':'));
      if (c == '#' && (before == ' ' || before == '\t' || p == 0)) break;
      if (c != ' ' && c != '\t') last_content = p;
      if (!token_start && flow == 0) continue;  // inside a plain scalar: '[' is a character
      if (c == '"') {
        in_double = true;
      } else if (c == '\'') {
        in_single = true;
      } else if (c == '[' || c == '{') {
        ++flow;
        deepest = std::max(deepest, block + flow);
        if (deepest > bound) return deepest;
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      }
    }
    // "key: |" or "- >-": the lines below, indented deeper, are text.
    if (flow == 0 && !in_single && !in_double && last_content != std::string::npos) {
      std::size_t q = last_content;
      while (q > 0 && (std::isdigit(static_cast<unsigned char>(line[q])) || line[q] == '-' ||
                       line[q] == '+'))
        --q;
      if ((line[q] == '|' || line[q] == '>') && (q == 0 || line[q - 1] == ' '))
        block_scalar_parent = column;
    }
  }
  return deepest;
}

// yaml-cpp 0.7 reads some malformed text (found by the fuzz target) as an endless run of empty
// documents: its events are counted first, and a text that gives more than a few per byte
// (real YAML gives at most two) is refused before YAML::LoadAll, the same parser, loops.
class BoundedEvents : public YAML::EventHandler {
 public:
  struct TooMany {};
  explicit BoundedEvents(std::size_t bound) : left_(bound) {}
  void OnDocumentStart(const YAML::Mark&) override { count(); }
  void OnDocumentEnd() override { count(); }
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { count(); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { count(); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    count();
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    count();
  }
  void OnSequenceEnd() override { count(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    count();
  }
  void OnMapEnd() override { count(); }

 private:
  void count() {
    if (left_-- == 0) throw TooMany{};
  }
  std::size_t left_;
};

// Where PETSc's reader raises an error (a list where it wants a map, ...): it stops there and
// says so in one line itself, so the walk stops too.
struct PetscRefusesHere {};

bool is_scalar(const YAML::Node& node) {
  return node.IsScalar() || node.IsNull();  // libyaml's empty scalar is yaml-cpp's null
}

std::string scalar_of(const YAML::Node& node) {
  return node.IsScalar() ? node.Scalar() : "";
}

class YamlWalk {
 public:
  YamlWalk(OptionsGuard& guard, const std::string& how) : guard_(guard), how_(how) {}

  // PetscParseLayerYAML.
  void layer(const YAML::Node& node) {
    if (is_scalar(node) && scalar_of(node).empty()) return;
    if (!node.IsMap()) throw PetscRefusesHere{};
    for (const YAML::Node& open : open_)
      if (open.is(node))
        refuse(how_ +
               ": a YAML merge key or alias refers to a map that contains it (PETSc's reader "
               "would recurse without end)");
    if (static_cast<int>(open_.size()) >= max_options_yaml_depth)
      refuse(how_ + ": YAML maps nested (with merge keys and aliases followed) more than " +
             std::to_string(max_options_yaml_depth) + " levels deep");
    open_.push_back(node);
    for (const auto& pair : node) {
      if (++entries_ > max_options_yaml_entries)
        refuse(how_ + ": the YAML expands, with merge keys and aliases followed, to more than " +
               std::to_string(max_options_yaml_entries) + " entries");
      const YAML::Node key = pair.first, value = pair.second;
      if (!is_scalar(key)) throw PetscRefusesHere{};
      const std::string name = scalar_of(key);
      if (name == "<<") {
        if (value.IsSequence()) {
          for (const YAML::Node& item : value) {
            if (!item.IsMap()) throw PetscRefusesHere{};
            layer(item);
          }
        } else if (value.IsMap()) {
          layer(value);
        } else {
          throw PetscRefusesHere{};
        }
        continue;
      }
      if (starts_with(name, "$$")) {
        if (ends_with(value.Tag(), "!include")) {
          // PETSc takes a map's or list's bytes for the name.
          if (!is_scalar(value))
            refuse(how_ + ": '" + shown(name) + ": !include' needs a file name, not a " +
                   (value.IsMap() ? "map" : "list"));
          guard_.check_yaml_file(how_ + ": " + shown(name) + ": !include", scalar_of(value));
        }
        continue;
      }
      if (is_scalar(value)) continue;
      if (value.IsSequence()) {
        for (const YAML::Node& item : value) {
          if (is_scalar(item)) continue;
          if (!item.IsMap() || item.size() > 1) throw PetscRefusesHere{};
          if (item.size() == 1) {
            const YAML::Node item_key = item.begin()->first;
            if (!is_scalar(item_key) || scalar_of(item_key) == "<<") throw PetscRefusesHere{};
            if (starts_with(scalar_of(item_key), "$$")) continue;
          }
          layer(item);
        }
      } else if (value.IsMap()) {
        layer(value);
      } else {
        throw PetscRefusesHere{};
      }
    }
    open_.pop_back();
  }

 private:
  OptionsGuard& guard_;
  const std::string& how_;
  std::vector<YAML::Node> open_;  // the maps being read, outermost first
  std::size_t entries_ = 0;
};

}  // namespace

void OptionsGuard::check_yaml_text(const std::string& how, const std::string& text) {
  if (const int depth = nesting_estimate(text, max_options_yaml_depth);
      depth > max_options_yaml_depth)
    refuse(how + ": YAML nested more than " + std::to_string(max_options_yaml_depth) +
           " levels deep (PETSc's reader recurses once per level)");
  std::vector<YAML::Node> documents;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    BoundedEvents events(4 * text.size() + 64);
    while (parser.HandleNextDocument(events)) {
    }
    documents = YAML::LoadAll(text);
  } catch (const BoundedEvents::TooMany&) {
    refuse(how + ": is not YAML this check can read: the parser did not come to its end");
  } catch (const YAML::Exception& error) {
    refuse(how + ": is not YAML this check can read: " + error.msg +
           (error.mark.is_null() ? std::string()
                                 : " (line " + std::to_string(error.mark.line + 1) + ", column " +
                                       std::to_string(error.mark.column + 1) + ")"));
  }
  for (const YAML::Node& document : documents) {
    YamlWalk walk(*this, how);
    try {
      walk.layer(document);
    } catch (const PetscRefusesHere&) {
      return;  // PETSc stops at this document with its own one-line reason
    }
  }
}

}  // namespace foehn::app::detail
