#pragma once
// Private to mesh/vtk: array names shared by the writer and the reader.

namespace foehn::vtk_detail {

inline constexpr const char* tet_tag_name = "tet_tag";            // cell data, Int32
inline constexpr const char* boundary_tag_name = "boundary_tag";  // boundary file cell data
inline constexpr const char* boundary_faces_name = "foehn_boundary_faces";  // field data, 3 x Int32
inline constexpr const char* boundary_tags_name = "foehn_boundary_tags";    // field data, Int32

}  // namespace foehn::vtk_detail
