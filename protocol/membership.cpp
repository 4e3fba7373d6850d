#include "protocol/membership.hpp"

#include "peer/model/enum_names.hpp"

namespace gridpeer::protocol {
namespace {

constexpr EnumNames<MemberState, 4> kMemberStateNames{{{
    {MemberState::alive, "alive"},
    {MemberState::suspect, "suspect"},
    {MemberState::dead, "dead"},
    {MemberState::left, "left"},
}}};

}  // namespace

const char* to_string(MemberState state) {
  return kMemberStateNames.name(state).data();
}

}  // namespace gridpeer::protocol
