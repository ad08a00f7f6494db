#pragma once
// The options guard's parts (options_files.hpp is its interface): options_files.cpp follows
// files, strings and PETSc's tokenisation; options_yaml.cpp checks YAML text and follows its
// `!include`s as PETSc's YAML reader (optionsyaml.c) does.
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace foehn::app::detail {

// A refusal: its text is the one line the program prints.
class Refusal : public std::runtime_error {
 public:
  explicit Refusal(const std::string& message) : std::runtime_error(message) {}
};

// A file the guard opened, read and found to be a regular file of text within the bounds.
struct ReadFile {
  std::string text;
  dev_t device = 0;
  ino_t inode = 0;
};

class OptionsGuard {
 public:
  // PetscOptionsInsert's order: default files, the two variables, then the command line.
  void check_everything(int argc, char** argv);

  // A file PETSc reads as YAML (-options_file_yaml, a YAML !include, or -options_file of a
  // .yaml/.yml/.json name, a ":yaml" suffix or a "%YAML"/"---" opening). `name` is as given.
  void check_yaml_file(const std::string& how, const std::string& name);

  // YAML text (-options_string_yaml, PETSC_OPTIONS_YAML, a YAML file's content).
  void check_yaml_text(const std::string& how, const std::string& text);

 private:
  // -options_file: PetscOptionsInsertFile, which picks the YAML or the plain reader. `required`
  // is false for the default files, which PETSc skips when they cannot be opened.
  void check_options_file(const std::string& how, const std::string& name, bool required);
  void check_plain_text(const std::string& how, const std::string& text);
  // A YAML string named on the command line or in a variable: bounded, then checked as text.
  void check_yaml_string(const std::string& how, const std::string& text);

  // Tokens as PetscOptionsInsertString_Private takes them (PETSC_OPTIONS, a file's lines):
  // `where[i]` says where token i came from ("line 3"), empty where there is nothing to add.
  void check_inserted_string(const std::string& how, const std::vector<std::string>& tokens,
                             const std::vector<std::string>& where);
  void check_arguments(const std::vector<std::string>& arguments);

  // Opens `path` (already resolved as PETSc resolves it) without blocking and reads it within
  // the bounds; nullopt when it does not exist (or, for a file that is not required, when
  // PETSc would skip it).
  std::optional<ReadFile> read_file(const std::string& how, const std::string& path, bool required);
  // Entering a file read from `how`: refuses a cycle or a nesting past the bound. The caller
  // pops chain_ when done.
  void enter(const std::string& how, const ReadFile& file, const std::string& path);
  void count_bytes(const std::string& how, std::size_t bytes);

  struct OpenFile {
    dev_t device;
    ino_t inode;
    std::string path;
  };
  std::vector<OpenFile> chain_;  // the files being read, outermost first
  std::size_t total_bytes_ = 0;
  int files_read_ = 0;
};

// The name PETSc opens for `name` (PetscStrreplace, PetscFixFilename): ${HOMEDIRECTORY},
// ${WORKINGDIRECTORY} and environment variables replaced, '\' made '/'. Refuses what PETSc
// would crash on (`${` without `}`), loop on (a variable whose value holds `${`) or what the
// guard cannot resolve as PETSc would (${PETSC_DIR}, ${HOSTNAME}, ...).
std::string petsc_file_name(const std::string& how, const std::string& name);

// `text` split as PetscTokenFind splits it on `separator`: a token opening with '"' runs to the
// next '"'. `offsets` (optional) receives where each token starts in `text`.
std::vector<std::string> petsc_tokens(const std::string& text, char separator,
                                      std::vector<std::size_t>* offsets = nullptr);

// PetscOptionsValidKey.
bool is_option_name(const std::string& token);

// PetscStrcasecmp(a, b) for ASCII.
bool same_ignoring_case(const std::string& a, const char* b);

// "<how>: " or "" when how is empty, to prefix a nested source.
std::string within(const std::string& how);

}  // namespace foehn::app::detail
