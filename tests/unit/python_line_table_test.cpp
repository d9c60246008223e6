// Line-table decoding against what each CPython computes itself: the tables of one function
// (a loop, a line continued, 300 blank lines so that deltas overflow a byte, a comprehension),
// compiled by the pyenv builds 3.8.18 to 3.13.0, with the line CPython gives for instruction
// offsets (dis.findlinestarts for 3.8/3.9, code.co_lines() from 3.10), printed by those builds.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/python/line_table.hpp"

namespace seam::runtime::python {
namespace {

struct Case {
  int minor;
  std::string table_hex;
  int first_line;
  std::vector<std::pair<int, int>> offset_lines;  // byte offset, line (-1: none)
};

std::vector<uint8_t> unhex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

LineTableFormat format_of(int minor) {
  return minor < 10    ? LineTableFormat::Lnotab
         : minor == 10 ? LineTableFormat::Linetable
                       : LineTableFormat::Locations;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {8,
       "0001040108010801040102ff08030a7f007f0030060106ff",
       2,
       {{0, 3},
        {6, 4},
        {12, 5},
        {18, 5},
        {24, 7},
        {30, 6},
        {36, 9},
        {42, 9},
        {48, 311},
        {54, 312},
        {60, 311},
        {60, 311}}},
      {9,
       "0001040108010801040102ff08030a7f007f0030060106ff",
       2,
       {{0, 3},
        {6, 4},
        {12, 5},
        {18, 5},
        {24, 7},
        {30, 6},
        {36, 9},
        {42, 9},
        {48, 311},
        {54, 312},
        {60, 311},
        {60, 311}}},
      {10,
       "0401080108010401020108ff0a03007f007f0630060106ff",
       2,
       {{0, 3},
        {6, 4},
        {12, 5},
        {18, 5},
        {24, 7},
        {30, 6},
        {36, 9},
        {42, 9},
        {48, 311},
        {54, 312},
        {60, 311},
        {60, 311}}},
      {11,
       "8000d80c0d8045d80d12f000050517f0000505178801d80b0c88718935f000040917d80c119061d81617f103011718f100010"
       "d1988458845f006000d129051894a88458845f05c09010c1af000010c1add0c119025894c8c4cf003010c1af100010c1af400"
       "010c1af00001051a",
       2,
       {{0, 2},
        {6, 4},
        {12, 4},
        {18, 5},
        {24, 6},
        {30, 6},
        {36, 6},
        {42, 9},
        {48, 9},
        {54, 311},
        {60, 312},
        {66, 312},
        {72, 312},
        {78, 312},
        {84, 312},
        {90, 311},
        {96, 311},
        {102, 311},
        {102, 311}}},
      {12,
       "8000d80c0d8045d80d12f2000505178801d80b0c88718a35d80c119061d81617f103011718f100010d198945f006000d12905"
       "1894a8945f00b050517f46809000d1290258b4cf603010c1a90218a41f200010c1af00001051af9f200010c1a",
       2,
       {{0, 2},    {6, 4},    {12, 4},   {18, 5},    {24, 5},   {30, 7},    {36, 6},
        {42, 6},   {48, 9},   {54, 9},   {60, 312},  {66, 312}, {72, 312},  {78, 311},
        {84, 311}, {90, 311}, {96, 311}, {102, 311}, {108, -1}, {114, 311}, {116, 311}}},
      {13,
       "8000d80c0d8045db0d128801d80b0c88718f35d80c11d81617f103011718f100010d198a45f006000d129051894a8a45f10b0"
       "00e13f46809000d1290258c4cf303010c1ad90c18f0030013148a41d90c18f103010c1af00001051af9f200010c1a",
       2,
       {{0, 2},    {6, 4},     {12, 4},    {18, 5},    {24, 5},    {30, 5},   {36, 6},    {42, 6},
        {48, 6},   {54, 9},    {60, 9},    {66, 9},    {72, 312},  {78, 312}, {84, 312},  {90, 312},
        {96, 311}, {102, 312}, {108, 311}, {114, 312}, {120, 311}, {126, -1}, {132, 311}, {132, 311}}},
  };
  return all;
}

TEST(LineTable, EachVersionsFormatGivesCPythonsLines) {
  for (const Case& c : cases()) {
    std::vector<uint8_t> table = unhex(c.table_hex);
    for (auto [offset, line] : c.offset_lines)
      EXPECT_EQ(line_for_offset(format_of(c.minor), table, c.first_line, offset), line)
          << "3." << c.minor << " offset " << offset;
  }
}

TEST(LineTable, AFrameNotStartedIsOnItsFirstLine) {
  for (const Case& c : cases())
    EXPECT_EQ(line_for_offset(format_of(c.minor), unhex(c.table_hex), c.first_line, -1), c.first_line);
}

TEST(LineTable, PastTheEndOrBrokenHasNoLine) {
  std::vector<uint8_t> locations = unhex(cases().back().table_hex);
  EXPECT_EQ(line_for_offset(LineTableFormat::Locations, locations, 2, 100000), -1);
  std::vector<uint8_t> not_an_entry = {0x05, 0x01};  // no entry starts without its high bit
  EXPECT_EQ(line_for_offset(LineTableFormat::Locations, not_an_entry, 2, 0), -1);
  std::vector<uint8_t> linetable = {4, 1, 4, 0x80};  // 3.10: -128 marks a range with no line
  EXPECT_EQ(line_for_offset(LineTableFormat::Linetable, linetable, 10, 2), 11);
  EXPECT_EQ(line_for_offset(LineTableFormat::Linetable, linetable, 10, 6), -1);
  EXPECT_EQ(line_for_offset(LineTableFormat::Linetable, linetable, 10, 8), -1);
  std::vector<uint8_t> odd = {6};  // 3.8: half a pair is ignored
  EXPECT_EQ(line_for_offset(LineTableFormat::Lnotab, odd, 7, 10), 7);
}

}  // namespace
}  // namespace seam::runtime::python
