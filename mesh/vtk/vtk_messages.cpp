#include "vtk_messages.hpp"

#include <string_view>

#include <vtkLogger.h>
#include <vtkObject.h>
#include <vtkObjectFactory.h>
#include <vtkOutputWindow.h>

namespace foehn::vtk_detail {

// Collects error and warning text; debug text is dropped (it is only produced when a user
// turned VTK debugging on, and is not a failure).
class CapturingOutputWindow : public vtkOutputWindow {
 public:
  static CapturingOutputWindow* New();
  // No semicolon: the macro ends in a function body, and -Wpedantic flags an extra one.
  vtkTypeMacro(CapturingOutputWindow, vtkOutputWindow)

  void DisplayText(const char* text) override { append(text); }
  void DisplayErrorText(const char* text) override { append(text); }
  void DisplayWarningText(const char* text) override { append(text); }
  void DisplayGenericWarningText(const char* text) override { append(text); }
  void DisplayDebugText(const char*) override {}

  const std::string& text() const { return text_; }

 private:
  // VTK's messages read "ERROR: In <source>, line <n>\n<class> (<address>): <text>" and the
  // pipeline adds a dump of its request; keep "<class>: <text>", one message per line.
  void append(const char* raw) {
    if (raw == nullptr) return;
    std::string_view text(raw);
    for (std::string_view header : {"ERROR: In ", "Warning: In ", "Generic Warning: In "}) {
      if (text.starts_with(header) && text.find('\n') != std::string_view::npos) {
        text.remove_prefix(text.find('\n') + 1);
        break;
      }
    }
    text = text.substr(0, text.find('\n'));
    std::string line(text);
    if (const auto open = line.find(" (0x"); open != std::string::npos) {
      if (const auto close = line.find("): ", open); close != std::string::npos) {
        line.erase(open, close + 1 - open);
      }
    }
    if (line.empty()) return;
    // "Algorithm ... returned failure for request" only repeats an earlier message.
    if (!text_.empty() && line.find("returned failure for request") != std::string::npos) return;
    if (!text_.empty()) text_ += "; ";
    text_ += line;
  }
  std::string text_;
};

vtkStandardNewMacro(CapturingOutputWindow);

namespace {
std::mutex& vtk_io_mutex() {
  static std::mutex mutex;
  return mutex;
}
}  // namespace

VtkMessageCapture::VtkMessageCapture()
    : lock_(vtk_io_mutex()),
      previous_(vtkOutputWindow::GetInstance()),
      window_(vtkSmartPointer<CapturingOutputWindow>::New()),
      // vtkLogger cannot report its stderr verbosity; the cutoff is the same number unless
      // the application added log files or callbacks that are more verbose than stderr.
      previous_stderr_verbosity_(static_cast<int>(vtkLogger::GetCurrentVerbosityCutoff())),
      previous_warning_display_(vtkObject::GetGlobalWarningDisplay()) {
  vtkOutputWindow::SetInstance(window_);
  vtkLogger::SetStderrVerbosity(vtkLogger::VERBOSITY_OFF);
  // With warning display off VTK drops its messages before they reach the window; we want
  // them for the exception text (they are never printed).
  vtkObject::GlobalWarningDisplayOn();
}

VtkMessageCapture::~VtkMessageCapture() {
  vtkObject::SetGlobalWarningDisplay(previous_warning_display_);
  vtkLogger::SetStderrVerbosity(static_cast<vtkLogger::Verbosity>(previous_stderr_verbosity_));
  vtkOutputWindow::SetInstance(previous_);
}

std::string VtkMessageCapture::messages() const { return window_->text(); }

}  // namespace foehn::vtk_detail
