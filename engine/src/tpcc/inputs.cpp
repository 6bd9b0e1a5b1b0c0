#include "tpcc/inputs.hpp"

namespace dbrepro::tpcc {

namespace {
u32 other_warehouse(Random& rng, u32 warehouses, u32 home_w) {
  // Uniform over the warehouses other than home.
  u32 w = static_cast<u32>(rng.uniform(1, warehouses - 1));
  return w >= home_w ? w + 1 : w;
}
}  // namespace

NewOrderInput make_new_order_input(Random& rng, Variant variant, u32 warehouses, u32 home_w,
                                   const NURandConstants& c) {
  NewOrderInput in{};
  in.w_id = home_w;
  in.d_id = static_cast<u32>(rng.uniform(1, kDistrictsPerWarehouse));
  in.c_id = static_cast<u32>(rng.nurand(1023, 1, kCustomersPerDistrict, c.c_id));
  const bool spec = variant == Variant::kSpec;
  in.ol_cnt = spec ? static_cast<u32>(rng.uniform(5, 15)) : 10;
  const bool rollback = rng.uniform(1, 100) == 1;
  for (u32 i = 0; i < in.ol_cnt; ++i) {
    NewOrderLineInput& line = in.lines[i];
    line.i_id = static_cast<u32>(rng.nurand(8191, 1, kItems, c.ol_i_id));
    line.supply_w_id = home_w;
    if (spec && warehouses > 1 && rng.uniform(1, 100) == 1) line.supply_w_id = other_warehouse(rng, warehouses, home_w);
    line.quantity = static_cast<u32>(rng.uniform(1, 10));
  }
  if (rollback) in.lines[in.ol_cnt - 1].i_id = kUnusedItem;
  return in;
}

PaymentInput make_payment_input(Random& rng, Variant variant, u32 warehouses, u32 home_w,
                                const NURandConstants& c) {
  PaymentInput in{};
  in.w_id = home_w;
  in.d_id = static_cast<u32>(rng.uniform(1, kDistrictsPerWarehouse));
  in.c_w_id = home_w;
  in.c_d_id = in.d_id;
  in.by_last_name = false;
  if (variant == Variant::kSpec) {
    if (warehouses > 1 && rng.uniform(1, 100) > 85) {
      in.c_w_id = other_warehouse(rng, warehouses, home_w);
      in.c_d_id = static_cast<u32>(rng.uniform(1, kDistrictsPerWarehouse));
    }
    in.by_last_name = rng.uniform(1, 100) <= 60;
  }
  if (in.by_last_name) {
    in.c_last_number = static_cast<u32>(rng.nurand(255, 0, 999, c.c_last));
  } else {
    in.c_id = static_cast<u32>(rng.nurand(1023, 1, kCustomersPerDistrict, c.c_id));
  }
  in.amount = rng.uniform(100, 500000);
  return in;
}

}  // namespace dbrepro::tpcc
