#pragma once
// Text for XML attributes and elements written by hand (.pvd, .pvtu, .xmf): the five
// characters XML reserves, escaped, so a file or field name with '&' or '"' stays valid XML.

#include <string>
#include <string_view>

namespace foehn {

std::string xml_escaped(std::string_view text);

}  // namespace foehn
