#pragma once
// The nine TPC-C tables (spec clause 1.3) as typed row structs, each with its
// key and the key's layout, plus the two secondary indexes the transactions
// use. Money is in cents, rates in basis points, dates are logical ticks and
// nullable ids use 0 for null.
#include "btree/key.hpp"
#include "common/types.hpp"

namespace dbrepro::tpcc {

// Field widths of packed keys; they bound the database size.
inline constexpr int kWBits = 16;   // up to 65,535 warehouses
inline constexpr int kDBits = 4;    // 10 districts
inline constexpr int kCBits = 12;   // 3,000 customers per district
inline constexpr int kIBits = 17;   // 100,000 items
inline constexpr int kOBits = 24;   // 16M orders per district
inline constexpr int kOlBits = 4;   // up to 15 order lines
inline constexpr int kLastBits = 10;  // C_LAST is built from a number 0..999

struct Warehouse {
  static constexpr const char* kName = "warehouse";
  static constexpr KeyLayout kLayout{kWBits};
  struct Key { u32 w_id; };
  static PackedKey pack(const Key& k) { return k.w_id; }
  static Key unpack(PackedKey p) { return {static_cast<u32>(p)}; }

  u32 w_id;
  char w_name[10];
  char w_street_1[20];
  char w_street_2[20];
  char w_city[20];
  char w_state[2];
  char w_zip[9];
  BasisPoints w_tax;
  Cents w_ytd;
};

struct District {
  static constexpr const char* kName = "district";
  static constexpr KeyLayout kLayout{kWBits, kDBits};
  struct Key { u32 d_w_id; u32 d_id; };
  static PackedKey pack(const Key& k) { return (u64{k.d_w_id} << kDBits) | k.d_id; }
  static Key unpack(PackedKey p) { return {static_cast<u32>(p >> kDBits), static_cast<u32>(p & 0xF)}; }

  u32 d_id;
  u32 d_w_id;
  char d_name[10];
  char d_street_1[20];
  char d_street_2[20];
  char d_city[20];
  char d_state[2];
  char d_zip[9];
  BasisPoints d_tax;
  Cents d_ytd;
  u32 d_next_o_id;
};

struct Customer {
  static constexpr const char* kName = "customer";
  static constexpr KeyLayout kLayout{kWBits, kDBits, kCBits};
  struct Key { u32 c_w_id; u32 c_d_id; u32 c_id; };
  static PackedKey pack(const Key& k) {
    return (((u64{k.c_w_id} << kDBits) | k.c_d_id) << kCBits) | k.c_id;
  }
  static Key unpack(PackedKey p) {
    return {static_cast<u32>(p >> (kDBits + kCBits)), static_cast<u32>((p >> kCBits) & 0xF),
            static_cast<u32>(p & 0xFFF)};
  }

  u32 c_id;
  u32 c_d_id;
  u32 c_w_id;
  u32 c_last_number;  // the 0..999 number C_LAST was built from (indexed)
  char c_first[16];
  char c_middle[2];
  char c_last[16];
  char c_street_1[20];
  char c_street_2[20];
  char c_city[20];
  char c_state[2];
  char c_zip[9];
  char c_phone[16];
  u64 c_since;
  char c_credit[2];
  Cents c_credit_lim;
  BasisPoints c_discount;
  Cents c_balance;
  Cents c_ytd_payment;
  u32 c_payment_cnt;
  u32 c_delivery_cnt;
  char c_data[500];
};

// Secondary index on CUSTOMER (C_W_ID, C_D_ID, C_LAST, C_ID): key only.
struct CustomerByName {
  static constexpr const char* kName = "customer_by_name";
  static constexpr bool kIndexOnly = true;
  static constexpr KeyLayout kLayout{kWBits, kDBits, kLastBits, kCBits};
  struct Key { u32 c_w_id; u32 c_d_id; u32 c_last_number; u32 c_id; };
  static PackedKey pack(const Key& k) {
    return (((((u64{k.c_w_id} << kDBits) | k.c_d_id) << kLastBits) | k.c_last_number) << kCBits) | k.c_id;
  }
  static Key unpack(PackedKey p) {
    return {static_cast<u32>(p >> (kDBits + kLastBits + kCBits)),
            static_cast<u32>((p >> (kLastBits + kCBits)) & 0xF),
            static_cast<u32>((p >> kCBits) & 0x3FF), static_cast<u32>(p & 0xFFF)};
  }
};

// HISTORY has no primary key and no index: rows are only ever created.
struct History {
  static constexpr const char* kName = "history";
  static constexpr bool kHeapOnly = true;
  struct Key {};  // none: the adapter's keyed operations are not available

  u32 h_c_id;
  u32 h_c_d_id;
  u32 h_c_w_id;
  u32 h_d_id;
  u32 h_w_id;
  u64 h_date;
  Cents h_amount;
  char h_data[24];
};

struct NewOrder {
  static constexpr const char* kName = "new_order";
  static constexpr KeyLayout kLayout{kWBits, kDBits, kOBits};
  struct Key { u32 no_w_id; u32 no_d_id; u32 no_o_id; };
  static PackedKey pack(const Key& k) { return (((u64{k.no_w_id} << kDBits) | k.no_d_id) << kOBits) | k.no_o_id; }
  static Key unpack(PackedKey p) {
    return {static_cast<u32>(p >> (kDBits + kOBits)), static_cast<u32>((p >> kOBits) & 0xF),
            static_cast<u32>(p & 0xFFFFFF)};
  }

  u32 no_o_id;
  u32 no_d_id;
  u32 no_w_id;
};

struct Order {
  static constexpr const char* kName = "order";
  static constexpr KeyLayout kLayout{kWBits, kDBits, kOBits};
  struct Key { u32 o_w_id; u32 o_d_id; u32 o_id; };
  static PackedKey pack(const Key& k) { return (((u64{k.o_w_id} << kDBits) | k.o_d_id) << kOBits) | k.o_id; }
  static Key unpack(PackedKey p) {
    return {static_cast<u32>(p >> (kDBits + kOBits)), static_cast<u32>((p >> kOBits) & 0xF),
            static_cast<u32>(p & 0xFFFFFF)};
  }

  u32 o_id;
  u32 o_d_id;
  u32 o_w_id;
  u32 o_c_id;
  u64 o_entry_d;
  u32 o_carrier_id;  // 0 = null (not yet delivered)
  u32 o_ol_cnt;
  u32 o_all_local;
};

// Secondary index on ORDER (O_W_ID, O_D_ID, O_C_ID, O_ID): key only.
struct OrderByCustomer {
  static constexpr const char* kName = "order_by_customer";
  static constexpr bool kIndexOnly = true;
  static constexpr KeyLayout kLayout{kWBits, kDBits, kCBits, kOBits};
  struct Key { u32 o_w_id; u32 o_d_id; u32 o_c_id; u32 o_id; };
  static PackedKey pack(const Key& k) {
    return (((((u64{k.o_w_id} << kDBits) | k.o_d_id) << kCBits) | k.o_c_id) << kOBits) | k.o_id;
  }
  static Key unpack(PackedKey p) {
    return {static_cast<u32>(p >> (kDBits + kCBits + kOBits)), static_cast<u32>((p >> (kCBits + kOBits)) & 0xF),
            static_cast<u32>((p >> kOBits) & 0xFFF), static_cast<u32>(p & 0xFFFFFF)};
  }
};

struct OrderLine {
  static constexpr const char* kName = "order_line";
  static constexpr KeyLayout kLayout{kWBits, kDBits, kOBits, kOlBits};
  struct Key { u32 ol_w_id; u32 ol_d_id; u32 ol_o_id; u32 ol_number; };
  static PackedKey pack(const Key& k) {
    return (((((u64{k.ol_w_id} << kDBits) | k.ol_d_id) << kOBits) | k.ol_o_id) << kOlBits) | k.ol_number;
  }
  static Key unpack(PackedKey p) {
    return {static_cast<u32>(p >> (kDBits + kOBits + kOlBits)), static_cast<u32>((p >> (kOBits + kOlBits)) & 0xF),
            static_cast<u32>((p >> kOlBits) & 0xFFFFFF), static_cast<u32>(p & 0xF)};
  }

  u32 ol_o_id;
  u32 ol_d_id;
  u32 ol_w_id;
  u32 ol_number;
  u32 ol_i_id;
  u32 ol_supply_w_id;
  u64 ol_delivery_d;  // 0 = null
  u32 ol_quantity;
  Cents ol_amount;
  char ol_dist_info[24];
};

struct Item {
  static constexpr const char* kName = "item";
  static constexpr KeyLayout kLayout{kIBits};
  struct Key { u32 i_id; };
  static PackedKey pack(const Key& k) { return k.i_id; }
  static Key unpack(PackedKey p) { return {static_cast<u32>(p)}; }

  u32 i_id;
  u32 i_im_id;
  char i_name[24];
  Cents i_price;
  char i_data[50];
};

struct Stock {
  static constexpr const char* kName = "stock";
  static constexpr KeyLayout kLayout{kWBits, kIBits};
  struct Key { u32 s_w_id; u32 s_i_id; };
  static PackedKey pack(const Key& k) { return (u64{k.s_w_id} << kIBits) | k.s_i_id; }
  static Key unpack(PackedKey p) { return {static_cast<u32>(p >> kIBits), static_cast<u32>(p & 0x1FFFF)}; }

  u32 s_i_id;
  u32 s_w_id;
  i32 s_quantity;
  char s_dist[10][24];  // S_DIST_01 .. S_DIST_10
  u32 s_ytd;
  u32 s_order_cnt;
  u32 s_remote_cnt;
  char s_data[50];
};

// Population constants (clause 4.3.3.1 / 1.4).
inline constexpr u32 kItems = 100000;
inline constexpr u32 kDistrictsPerWarehouse = 10;
inline constexpr u32 kCustomersPerDistrict = 3000;
inline constexpr u32 kOrdersPerDistrict = 3000;
inline constexpr u32 kFirstUndeliveredOrder = 2101;  // orders 2101..3000 are new orders

// Row structs must be trivially copyable: they are stored as bytes in pages.
template <class Row>
inline constexpr bool kIsHeapOnly = requires { Row::kHeapOnly; };
template <class Row>
inline constexpr bool kIsIndexOnly = requires { Row::kIndexOnly; };

}  // namespace dbrepro::tpcc
