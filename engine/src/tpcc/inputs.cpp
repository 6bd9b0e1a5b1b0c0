#include "tpcc/inputs.hpp"

namespace dbrepro::tpcc {

namespace {
u32 other_warehouse(Random& rng, u32 warehouses, u32 home_w) {
  // Uniform over the warehouses other than home.
  u32 w = static_cast<u32>(rng.uniform(1, warehouses - 1));
  return w >= home_w ? w + 1 : w;
}

// A customer by id or by last name (Payment and Order-Status share the rule).
void pick_customer(Random& rng, bool by_last_name, const NURandConstants& c, u32& c_id, u32& c_last_number) {
  if (by_last_name) {
    c_last_number = static_cast<u32>(rng.nurand(255, 0, 999, c.c_last));
  } else {
    c_id = static_cast<u32>(rng.nurand(1023, 1, kCustomersPerDistrict, c.c_id));
  }
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
  pick_customer(rng, in.by_last_name, c, in.c_id, in.c_last_number);
  in.amount = rng.uniform(100, 500000);
  return in;
}

OrderStatusInput make_order_status_input(Random& rng, u32 home_w, const NURandConstants& c) {
  OrderStatusInput in{};
  in.w_id = home_w;
  in.d_id = static_cast<u32>(rng.uniform(1, kDistrictsPerWarehouse));
  in.by_last_name = rng.uniform(1, 100) <= 60;
  pick_customer(rng, in.by_last_name, c, in.c_id, in.c_last_number);
  return in;
}

DeliveryInput make_delivery_input(Random& rng, u32 home_w) {
  return DeliveryInput{home_w, static_cast<u32>(rng.uniform(1, 10))};
}

StockLevelInput make_stock_level_input(Random& rng, u32 home_w) {
  return StockLevelInput{home_w, static_cast<u32>(rng.uniform(1, kDistrictsPerWarehouse)),
                         static_cast<i32>(rng.uniform(10, 20))};
}

}  // namespace dbrepro::tpcc
