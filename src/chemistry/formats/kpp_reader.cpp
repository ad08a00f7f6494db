// KPP mechanism files (.def with #INCLUDEd .spc and .eqn, as KPP itself reads them): species
// from #DEFVAR/#DEFFIX, reactions from #EQUATIONS, rate expressions of the forms listed in
// docs/chemistry.md mapped onto Foehn's reaction types. Sections that drive KPP's code
// generation (#INTEGRATOR, #LANGUAGE, #INLINE ... #ENDINLINE, #LOOKAT, ...) are skipped; anything
// Foehn cannot represent exactly is an error naming the file, the line and the expression.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "foehn/chemistry/mechanism.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/input_file.hpp"
#include "json_documents.hpp"

namespace foehn::chemistry {
namespace {

constexpr int max_include_depth = 10;  // KPP's own limit
// Depth alone does not bound the work: a file that includes the next ten times, ten deep, is
// 10^10 reads. Real mechanisms include a handful of files (.def, .spc, .eqn, atoms).
constexpr int max_included_files = 1000;
constexpr std::uintmax_t max_included_bytes = std::uintmax_t{1} << 30;  // in all, 1 GiB

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::string without_spaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

// -x without producing -0.0 (a negated zero exponent would make the parameters differ in their
// bits from the same mechanism written in another format).
double negated(double x) {
  return x == 0.0 ? 0.0 : -x;
}

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A Fortran or C number: 1.8E-12, 1.8D-12, 300., .5, 2.0e-12_dp. Returns false if `text` is not
// one number in full.
bool parse_number(std::string text, double& value) {
  if (text.size() > 3 && upper(text.substr(text.size() - 3)) == "_DP") text.resize(text.size() - 3);
  if (text.empty()) return false;
  for (char& c : text) {
    if (c == 'd' || c == 'D') c = 'e';
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
          c == '+' || c == '-'))
      return false;
  }
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// Blanks out { ... } and // ... comments, keeping newlines so that line numbers stay right.
std::string without_comments(const std::string& text, const std::string& source) {
  std::string out = text;
  std::size_t i = 0;
  int line = 1;
  while (i < out.size()) {
    if (out[i] == '\n') ++line;
    if (out[i] == '{') {
      const int start_line = line;
      while (i < out.size() && out[i] != '}') {
        if (out[i] == '\n')
          ++line;
        else
          out[i] = ' ';
        ++i;
      }
      if (i == out.size())
        fail(ErrorCategory::invalid_input, source, ": line ", start_line,
             ": comment '{' is not closed (truncated file?)");
      out[i] = ' ';
    } else if (out[i] == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
      continue;
    }
    ++i;
  }
  return out;
}

enum class Section { none, variable_species, fixed_species, equations, skipped };

class KppReader {
 public:
  Mechanism read(const std::string& text, const std::string& source,
                 const std::filesystem::path& folder) {
    read_file(text, source, folder, 0);
    if (mechanism_.species.empty())
      fail(ErrorCategory::invalid_input, source, ": no species (#DEFVAR/#DEFFIX) found");
    if (mechanism_.reactions.empty())
      fail(ErrorCategory::invalid_input, source, ": no reactions (#EQUATIONS) found");
    return std::move(mechanism_);
  }

 private:
  void read_file(const std::string& raw, const std::string& source,
                 const std::filesystem::path& folder, int depth) {
    const std::string text = without_comments(raw, source);
    // Once per file: searching a fresh uppercase copy for each #INLINE was quadratic (200,000
    // blocks never ended).
    const std::string upper_text = upper(text);
    std::size_t i = 0;
    int line = 1;
    auto advance = [&](std::size_t to) {
      line += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                                          text.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
      i = to;
    };
    while (true) {
      const std::size_t next = text.find_first_not_of(" \t\r\n", i);
      if (next == std::string::npos) return;
      advance(next);
      if (text[i] == '#') {
        std::size_t end = text.find('\n', i);
        if (end == std::string::npos) end = text.size();
        const std::string command_line = trim(text.substr(i, end - i));
        const int command_at = line;
        advance(end);
        const std::size_t word_end = command_line.find_first_of(" \t");
        const std::string command = upper(command_line.substr(0, word_end));
        const std::string argument =
            word_end == std::string::npos ? std::string() : trim(command_line.substr(word_end));
        const std::string where = source + ": line " + std::to_string(command_at);
        if (command == "#INLINE") {
          const std::size_t close = upper_text.find("#ENDINLINE", i);
          if (close == std::string::npos)
            fail(ErrorCategory::invalid_input, where, ": #INLINE has no #ENDINLINE");
          advance(close + 10);
        } else if (command == "#INCLUDE") {
          include(argument, where, folder, depth);
        } else if (command == "#MODEL") {
          fail(ErrorCategory::invalid_input, where, ": #MODEL ", argument,
               " names a model of KPP's installation; pass that model's .def (with its .spc and "
               ".eqn) instead");
        } else if (command == "#DEFVAR") {
          section_ = Section::variable_species;
        } else if (command == "#DEFFIX") {
          section_ = Section::fixed_species;
        } else if (command == "#EQUATIONS") {
          section_ = Section::equations;
        } else {
          section_ = Section::skipped;  // code generation settings: no effect on the kinetics
        }
        continue;
      }
      const std::size_t end = text.find(';', i);
      if (end == std::string::npos)
        fail(ErrorCategory::invalid_input, source, ": line ", line,
             ": statement has no closing ';' (truncated file?)");
      const std::string statement = trim(text.substr(i, end - i));
      const std::string where = source + ": line " + std::to_string(line);
      advance(end + 1);
      switch (section_) {
        case Section::variable_species:
          declare(statement, false, where);
          break;
        case Section::fixed_species:
          declare(statement, true, where);
          break;
        case Section::equations:
          equation(statement, where);
          break;
        case Section::skipped:
          break;
        case Section::none:
          fail(ErrorCategory::invalid_input, where, ": '", statement,
               "' is outside any section (#DEFVAR, #DEFFIX, #EQUATIONS)");
      }
    }
  }

  void include(const std::string& name, const std::string& where,
               const std::filesystem::path& folder, int depth) {
    if (name.empty()) fail(ErrorCategory::invalid_input, where, ": #INCLUDE names no file");
    if (depth + 1 > max_include_depth)
      fail(ErrorCategory::invalid_input, where, ": #INCLUDE nested deeper than ", max_include_depth,
           " levels (an include cycle?)");
    const std::filesystem::path path = folder / name;
    // KPP's element table: compositions are not needed for the kinetics.
    std::error_code missing;
    if (upper(name) == "ATOMS" && !std::filesystem::exists(path, missing)) return;
    // A folder once opened and read as nothing (the include silently ignored); a FIFO blocked.
    require_regular_file(path, where + ": #INCLUDE file");
    if (++included_files_ > max_included_files)
      fail(ErrorCategory::invalid_input, where, ": #INCLUDE ", name, ": more than ",
           max_included_files, " files included in all (a file including another many times?)");
    std::error_code size_error;
    const std::uintmax_t size = std::filesystem::file_size(path, size_error);
    if (size_error || size > max_included_bytes - included_bytes_)
      fail(ErrorCategory::invalid_input, where, ": #INCLUDE ", name, ": the included files hold ",
           "more than ", max_included_bytes, " bytes in all");
    included_bytes_ += size;
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(ErrorCategory::io, where, ": cannot open #INCLUDE file ", path.string());
    std::ostringstream text;
    text << in.rdbuf();
    read_file(text.str(), path.string(), path.parent_path(), depth + 1);
  }

  // "O3 = 3O;", "NO = IGNORE;"
  void declare(const std::string& statement, bool fixed, const std::string& where) {
    const std::string name = trim(statement.substr(0, statement.find('=')));
    if (statement.find('=') == std::string::npos || name.empty() || !is_name_start(name[0]) ||
        !std::all_of(name.begin(), name.end(), is_name_char))
      fail(ErrorCategory::invalid_input, where, ": species declaration '", statement,
           "' is not NAME = composition");
    if (upper(name) == "HV") return;  // KPP's photon placeholder
    const auto [slot, added] =
        species_index_.emplace(upper(name), static_cast<int>(mechanism_.species.size()));
    if (!added)
      fail(ErrorCategory::invalid_input, where, ": species '", name, "' is declared twice");
    Species species;
    species.name = name;
    species.constant = fixed;
    mechanism_.species.push_back(std::move(species));
  }

  // "2 NO2 + O3" -> amounts; `hv` is dropped and marks photolysis.
  std::vector<SpeciesAmount> side(const std::string& text, bool reactants, bool& has_photon,
                                  const std::string& where) const {
    std::vector<SpeciesAmount> amounts;
    const std::string compact = without_spaces(text);
    if (compact.empty()) return amounts;
    if (compact.find('-') != std::string::npos)
      fail(ErrorCategory::invalid_input, where, ": '", trim(text),
           "': negative stoichiometric coefficients are not supported");
    std::stringstream terms(compact);
    std::string term;
    while (std::getline(terms, term, '+')) {
      std::size_t name_start = 0;
      while (name_start < term.size() && !is_name_start(term[name_start])) ++name_start;
      double coefficient = 1.0;
      if (name_start > 0 && !parse_number(term.substr(0, name_start), coefficient))
        fail(ErrorCategory::invalid_input, where, ": '", term, "': coefficient is not a number");
      const std::string name = term.substr(name_start);
      if (name.empty() || !std::all_of(name.begin(), name.end(), is_name_char))
        fail(ErrorCategory::invalid_input, where, ": '", term, "' is not a species term");
      if (upper(name) == "HV") {
        has_photon = true;
        continue;
      }
      const auto found = species_index_.find(upper(name));
      if (found == species_index_.end())
        fail(ErrorCategory::invalid_input, where, ": species '", name,
             "' is not declared in #DEFVAR or #DEFFIX");
      if (!(coefficient >= 0.0) || !std::isfinite(coefficient))
        fail(ErrorCategory::invalid_input, where, ": '", term, "': coefficient must be >= 0");
      if (reactants && (coefficient < 1.0 || coefficient > max_reactant_coefficient ||
                        coefficient != std::floor(coefficient)))
        fail(ErrorCategory::invalid_input, where, ": reactant '", term,
             "': coefficient must be an integer from 1 to ", max_reactant_coefficient);
      SpeciesAmount amount;
      amount.species = found->second;
      amount.amount = coefficient;
      amounts.push_back(amount);
    }
    return amounts;
  }

  // "<R1> NO + O3 = NO2 + O2 : ARR(3.0E-12, 1500.0, 0.0)"
  void equation(std::string statement, const std::string& where) {
    Reaction reaction;
    if (!statement.empty() && statement[0] == '<') {
      const std::size_t close = statement.find('>');
      if (close == std::string::npos)
        fail(ErrorCategory::invalid_input, where, ": equation tag has no '>'");
      reaction.name = trim(statement.substr(1, close - 1));
      if (!formats::is_json_text(reaction.name))
        fail(ErrorCategory::invalid_input, where, ": equation tag is not valid UTF-8");
      statement = statement.substr(close + 1);
    }
    const std::size_t equals = statement.find('=');
    const std::size_t colon = statement.find(':', equals == std::string::npos ? 0 : equals);
    if (equals == std::string::npos || colon == std::string::npos)
      fail(ErrorCategory::invalid_input, where, ": equation '", trim(statement),
           "' is not 'reactants = products : rate'");
    const std::string at = where + (reaction.name.empty() ? "" : " <" + reaction.name + ">");
    bool photon = false;
    reaction.reactants = side(statement.substr(0, equals), true, photon, at);
    reaction.products = side(statement.substr(equals + 1, colon - equals - 1), false, photon, at);
    if (reaction.reactants.empty())
      fail(ErrorCategory::invalid_input, at, ": the equation has no reactant species");
    rate(trim(statement.substr(colon + 1)), reaction, at);
    if (reaction.type == ReactionType::photolysis) {
      const auto [slot, added] = external_rates_.emplace(
          reaction.name, static_cast<int>(mechanism_.external_rate_names.size()));
      if (added) mechanism_.external_rate_names.push_back(reaction.name);
      reaction.external_rate = slot->second;
    }
    mechanism_.reactions.push_back(std::move(reaction));
  }

  // A call "NAME(a, b, ...)" -> upper-case name and argument texts; false if not a call.
  static bool split_call(const std::string& text, std::string& name,
                         std::vector<std::string>& args) {
    const std::size_t open = text.find('(');
    if (open == std::string::npos || open == 0 || text.back() != ')') return false;
    name = upper(text.substr(0, open));
    if (!std::all_of(name.begin(), name.end(), is_name_char)) return false;
    args.clear();
    std::stringstream list(text.substr(open + 1, text.size() - open - 2));
    std::string arg;
    while (std::getline(list, arg, ',')) args.push_back(arg);
    return true;
  }

  // One rate expression, mapped onto a reaction type and its parameters; every error names the
  // expression and lists the forms Foehn reads.
  class RateReader {
   public:
    RateReader(const std::string& expression, Reaction& reaction, const std::string& where)
        : expression_(expression),
          where_(where),
          reaction_(reaction),
          text_(without_spaces(expression)),
          call_(text_) {}

    void read() {
      split_constant_factor();
      double constant = 0.0;
      if (parse_number(text_, constant)) {
        if (!std::isfinite(constant) || constant < 0.0)
          unsupported("is not a finite, non-negative constant");
        arrhenius(constant, 0.0, 0.0);
        return;
      }
      std::string name;
      std::vector<std::string> args;
      if (!split_call(call_, name, args)) unsupported("is not a form Foehn reads");
      if (name == "EXP" && has_factor_) {
        exp_over_temperature(args);
        return;
      }
      if (has_factor_ && name != "J" && name != "PHOTOL")
        unsupported("multiplies a thermal rate law by a constant");
      rate_law(name, args);
      check_parameters();
    }

   private:
    [[noreturn]] void unsupported(const char* why) const {
      fail(ErrorCategory::invalid_input, where_, ": rate expression '", expression_, "' ", why,
           " (Foehn reads: a constant, A*EXP(C/TEMP), ARR, GCARR, GCARR_ab, GCARR_ac, GCARR_abc, "
           "GCJPLPR_aba, GCJPLPR_abab, k_3rd, TROE, J(name), PHOTOL(n), optionally times a "
           "constant; see docs/chemistry.md)");
    }

    std::vector<double> numbers(const std::vector<std::string>& args, std::size_t count) const {
      std::vector<double> values(count);
      if (args.size() < count) unsupported("has too few arguments");
      for (std::size_t a = 0; a < count; ++a) {
        if (!parse_number(args[a], values[a]) || !std::isfinite(values[a]))
          unsupported("has an argument that is not a number");
      }
      return values;
    }

    void expect_names(const std::vector<std::string>& args, std::size_t first,
                      std::initializer_list<const char*> names) const {
      if (args.size() != first + names.size()) unsupported("has the wrong number of arguments");
      std::size_t a = first;
      for (const char* n : names) {
        if (upper(args[a++]) != n)
          unsupported("passes something other than TEMP and the air density");
      }
    }

    void arrhenius(double a, double b, double c) {
      reaction_.type = ReactionType::arrhenius;
      reaction_.parameters = {a, b, c, 300.0, 0.0, 0.0, 0.0, 0.0};
    }

    void troe(double k0, double k0_b, double kinf, double kinf_b, double fc) {
      reaction_.type = ReactionType::troe;
      reaction_.parameters = {k0, k0_b, 0.0, kinf, kinf_b, 0.0, fc, 1.0};
    }

    // An optional constant factor in front of (or behind) a call: 0.5*J(x).
    void split_constant_factor() {
      const std::size_t star = text_.find('*');
      if (star != std::string::npos && text_.find('(') != std::string::npos) {
        double value = 0.0;
        if (parse_number(text_.substr(0, star), value) && text_.find('(') > star) {
          factor_ = value;
          call_ = text_.substr(star + 1);
          has_factor_ = true;
        } else if (text_.back() != ')' && parse_number(text_.substr(text_.rfind('*') + 1), value)) {
          factor_ = value;
          call_ = text_.substr(0, text_.rfind('*'));
          has_factor_ = true;
        }
      }
    }

    // A*EXP(C/TEMP) or A*EXP(-C/TEMP)
    void exp_over_temperature(const std::vector<std::string>& args) {
      const std::string arg = args.size() == 1 ? args[0] : std::string();
      const std::size_t slash = arg.find('/');
      double c = 0.0;
      if (slash == std::string::npos || upper(arg.substr(slash + 1)) != "TEMP" ||
          !parse_number(arg.substr(0, slash), c))
        unsupported("has an EXP(...) that is not EXP(C/TEMP)");
      arrhenius(factor_, 0.0, c);
    }

    void rate_law(const std::string& name, const std::vector<std::string>& args) {
      if (name == "ARR") {  // KPP: A0 exp(-B0/T) (T/300)^C0
        const auto v = numbers(args, 3);
        if (args.size() != 3) unsupported("has the wrong number of arguments");
        arrhenius(v[0], v[2], negated(v[1]));
      } else if (name == "ARR2") {
        unsupported(
            "uses ARR2, whose sign of B0 differs between KPP's library and WRF-Chem's; "
            "write ARR or GCARR_ac");
      } else if (name == "GCARR" || name == "GCARR_ABC") {  // A0 exp(C0/T) (300/T)^B0
        const auto v = numbers(args, 3);
        if (args.size() != 3) unsupported("has the wrong number of arguments");
        arrhenius(v[0], negated(v[1]), v[2]);
      } else if (name == "GCARR_AB") {
        const auto v = numbers(args, 2);
        if (args.size() != 2) unsupported("has the wrong number of arguments");
        arrhenius(v[0], negated(v[1]), 0.0);
      } else if (name == "GCARR_AC") {
        const auto v = numbers(args, 2);
        if (args.size() != 2) unsupported("has the wrong number of arguments");
        arrhenius(v[0], 0.0, v[1]);
      } else if (name == "GCJPLPR_ABAB") {  // k0 = a1 (300/T)^b1 M, kinf = a2 (300/T)^b2, Fc = fv
        const auto v = numbers(args, 5);
        if (args.size() != 5) unsupported("has the wrong number of arguments");
        troe(v[0], negated(v[1]), v[2], negated(v[3]), v[4]);
      } else if (name == "GCJPLPR_ABA") {
        const auto v = numbers(args, 4);
        if (args.size() != 4) unsupported("has the wrong number of arguments");
        troe(v[0], negated(v[1]), v[2], 0.0, v[3]);
      } else if (name == "K_3RD") {  // MECCA: k_3rd(temp, cair, k0_300K, n, kinf_300K, m, fc)
        if (args.size() != 7 || upper(args[0]) != "TEMP" || upper(args[1]) != "CAIR")
          unsupported("is not k_3rd(temp, cair, k0_300K, n, kinf_300K, m, fc)");
        const std::vector<std::string> tail(args.begin() + 2, args.end());
        const auto v = numbers(tail, 5);
        troe(v[0], negated(v[1]), v[2], negated(v[3]), v[4]);
      } else if (name == "TROE") {  // WRF-Chem: TROE(k0_300K, n, kinf_300K, m, TEMP, C_M), Fc 0.6
        const auto v = numbers(args, 4);
        expect_names(args, 4, {"TEMP", "C_M"});
        troe(v[0], negated(v[1]), v[2], negated(v[3]), 0.6);
      } else if (name == "J" || name == "PHOTOL") {
        photolysis(name, args);
      } else {
        unsupported("calls a rate law Foehn does not know");
      }
    }

    void photolysis(const std::string& name, const std::vector<std::string>& args) {
      if (args.size() != 1 || args[0].empty() || !formats::is_json_text(args[0]))
        unsupported("does not name one photolysis rate");
      if (!(factor_ >= 0.0) || !std::isfinite(factor_))
        unsupported("scales a photolysis rate by a negative number");
      reaction_.type = ReactionType::photolysis;
      reaction_.scaling_factor = factor_;
      // The per-cell rate's name: J(x) -> x; PHOTOL(n) stays as written.
      reaction_.name = name == "J" ? args[0] : "PHOTOL(" + args[0] + ")";
    }

    void check_parameters() const {
      for (double p : reaction_.parameters) {
        if (!std::isfinite(p)) unsupported("has a parameter that is not finite");
      }
      if (reaction_.parameters[0] < 0.0) unsupported("has a negative pre-exponential factor");
      if (reaction_.type == ReactionType::troe &&
          !(reaction_.parameters[3] > 0.0 && reaction_.parameters[6] >= 0.0))
        unsupported("has a high-pressure limit or Fc that is not positive");
    }

    const std::string& expression_;
    const std::string& where_;
    Reaction& reaction_;
    const std::string text_;
    std::string call_;
    double factor_ = 1.0;
    bool has_factor_ = false;
  };

  void rate(const std::string& expression, Reaction& reaction, const std::string& where) const {
    RateReader(expression, reaction, where).read();
  }

  Mechanism mechanism_;
  Section section_ = Section::none;
  int included_files_ = 0;
  std::uintmax_t included_bytes_ = 0;
  std::map<std::string, int> species_index_;  // upper-case name -> index (KPP ignores case)
  std::map<std::string, int> external_rates_;
};

}  // namespace

Mechanism parse_kpp_mechanism(std::string_view kpp_text, std::string_view source_name,
                              const std::filesystem::path& include_folder) {
  Mechanism mechanism =
      KppReader().read(std::string(kpp_text), std::string(source_name), include_folder);
  // The file's name names the mechanism; a name that is not UTF-8 (a Latin-1 file name) keeps
  // its readable part, since no JSON or YAML writer could write it back as it is.
  mechanism.name = formats::as_json_text(std::filesystem::path(source_name).stem().string());
  return mechanism;
}

}  // namespace foehn::chemistry
