#pragma once
// Private to mesh/vtk: captures what VTK reports through vtkOutputWindow while one Foehn
// read or write runs, so that failures become foehn::Error instead of text on stderr (or a
// message box on Windows) that a batch job would never show to anyone.

#include <mutex>
#include <string>

#include <vtkSmartPointer.h>

class vtkOutputWindow;

namespace foehn::vtk_detail {

class CapturingOutputWindow;

// While alive: holds the lock that serialises Foehn's VTK I/O (the output window and the
// logger settings are process-global, so two captures must not overlap), routes VTK's error
// and warning text into messages() and keeps VTK's logger (loguru, which VTK 9 calls before
// the output window) off stderr. Everything is restored on destruction.
class VtkMessageCapture {
 public:
  VtkMessageCapture();
  ~VtkMessageCapture();
  VtkMessageCapture(const VtkMessageCapture&) = delete;
  VtkMessageCapture& operator=(const VtkMessageCapture&) = delete;

  // Errors and warnings reported so far, separated by "; "; empty when VTK said nothing.
  std::string messages() const;
  bool empty() const { return messages().empty(); }

 private:
  std::unique_lock<std::mutex> lock_;
  vtkSmartPointer<vtkOutputWindow> previous_;
  vtkSmartPointer<CapturingOutputWindow> window_;
  int previous_stderr_verbosity_;
  int previous_warning_display_;
};

}  // namespace foehn::vtk_detail
