// E3's server and client over loopback TCP: both join strategies give the
// same tuples in both server modes; bad frames get errors while other
// clients go on; disconnects free cursors; the connection limit holds.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "openedge/client.hpp"
#include "driver/openedge/run.hpp"
#include "openedge/server.hpp"

using namespace dbrepro;
using namespace dbrepro::openedge;

namespace {

struct Fixture {
  Database db = build_database({400, 2, 3, ""});
  BufferPool pool{db, {0, 25, LatchSizing::factor(10)}};
};

ServerConfig config(ServerMode mode, u32 max_connections = 8, bool optimistic = true) {
  ServerConfig c;
  c.mode = mode;
  c.max_connections = max_connections;
  c.optimistic = optimistic;
  return c;
}

std::vector<std::vector<i64>> collect(bool server_side, Client& client, const JoinSpec& spec, u32 prefetch) {
  std::vector<std::vector<i64>> tuples;
  auto sink = [&](const std::vector<Record>& tuple) {
    std::vector<i64> keys;
    for (const auto& r : tuple) keys.push_back(num_key(r));
    tuples.push_back(keys);
  };
  if (server_side)
    join_server_side(client, spec, prefetch, sink);
  else
    join_client_side(client, spec, prefetch, sink);
  return tuples;
}

// Polls until `done` or a second passes (the server handles disconnects on its own threads).
template <class Condition>
bool eventually(Condition done) {
  for (int i = 0; i < 1000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return done();
}

class OpenEdgeServerModes : public ::testing::TestWithParam<ServerMode> {};

}  // namespace

TEST_P(OpenEdgeServerModes, ClientSideAndServerSideJoinsReturnIdenticalTuples) {
  Fixture f;
  Server server(f.db, f.pool, config(GetParam()));
  server.start();
  Client client("127.0.0.1", server.port());
  const JoinSpec spec = article_join(20, 220);
  for (u32 prefetch : {1u, 7u, 100u}) {
    const auto client_side = collect(false, client, spec, prefetch);
    const auto server_side = collect(true, client, spec, prefetch);
    ASSERT_FALSE(client_side.empty());
    EXPECT_EQ(client_side, server_side) << "prefetch " << prefetch;
    for (const auto& t : client_side) EXPECT_TRUE(t[0] >= 20 && t[0] < 220);
  }
  // The server-side join sends fewer records and messages for the same tuples.
  Client a("127.0.0.1", server.port()), b("127.0.0.1", server.port());
  const auto ca = join_client_side(a, spec, 100);
  const auto sb = join_server_side(b, spec, 100);
  EXPECT_EQ(ca.tuples, sb.tuples);
  EXPECT_EQ(ca.checksum, sb.checksum);
  EXPECT_LT(sb.records_received, ca.records_received);
  EXPECT_LT(b.counters().messages_sent, a.counters().messages_sent);
  EXPECT_LT(b.counters().bytes_received, a.counters().bytes_received);
  EXPECT_EQ(server.stats().open_cursors, 0);  // every cursor ran to its end
}

TEST_P(OpenEdgeServerModes, PointFindAndCursorsOverTheWire) {
  Fixture f;
  Server server(f.db, f.pool, config(GetParam()));
  server.start();
  Client client("127.0.0.1", server.port());
  auto found = client.records(FindRequest{3, Column::kNumKey, 17});
  ASSERT_EQ(found.entries.size(), 1u);
  EXPECT_EQ(num_key(found.entries[0].record), 17);
  EXPECT_TRUE(client.records(FindRequest{3, Column::kNumKey, 1 << 30}).entries.empty());
  auto first = client.records(OpenRequest{0, Column::kNumKey, 0, 100, 30});
  EXPECT_FALSE(first.end);
  EXPECT_EQ(first.entries.size(), 30u);
  EXPECT_EQ(server.stats().open_cursors, 1);
  EXPECT_TRUE(std::holds_alternative<OkReply>(client.call(CloseRequest{first.cursor})));
  EXPECT_EQ(server.stats().open_cursors, 0);
  EXPECT_THROW(client.records(NextRequest{first.cursor, 10}), ServerError);  // closed
}

TEST_P(OpenEdgeServerModes, BadFramesGetErrorsWhileAnotherClientContinues) {
  Fixture f;
  Server server(f.db, f.pool, config(GetParam()));
  server.start();
  Client good("127.0.0.1", server.port()), bad("127.0.0.1", server.port());
  const JoinSpec spec = article_join(0, 100);
  const auto expected = collect(true, good, spec, 50);

  // Malformed: an error, and the same connection keeps working.
  const std::byte junk[] = {std::byte{2}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0x7F}, std::byte{1}};
  bad.send_raw(junk, sizeof(junk));
  auto reply = bad.read_reply();
  ASSERT_TRUE(std::holds_alternative<ErrorReply>(reply));
  EXPECT_EQ(std::get<ErrorReply>(reply).code, ErrorCode::kMalformed);
  EXPECT_EQ(collect(false, good, spec, 50), expected);
  EXPECT_EQ(bad.records(FindRequest{0, Column::kNumKey, 5}).entries.size(), 1u);

  // Truncated: half a frame, then the rest arrives later: served once whole.
  std::vector<std::byte> frame;
  encode(FindRequest{0, Column::kNumKey, 6}, frame);
  bad.send_raw(frame.data(), 5);
  EXPECT_EQ(collect(true, good, spec, 50), expected);  // the server is not stuck on the half frame
  bad.send_raw(frame.data() + 5, frame.size() - 5);
  reply = bad.read_reply();
  ASSERT_TRUE(std::holds_alternative<RecordsReply>(reply));
  EXPECT_EQ(num_key(std::get<RecordsReply>(reply).entries.at(0).record), 6);

  // Oversized: an error, then the server closes that connection only.
  std::vector<std::byte> huge(4);
  const u32 length = kMaxBody + 10;
  std::memcpy(huge.data(), &length, 4);
  bad.send_raw(huge.data(), huge.size());
  reply = bad.read_reply();
  ASSERT_TRUE(std::holds_alternative<ErrorReply>(reply));
  EXPECT_EQ(std::get<ErrorReply>(reply).code, ErrorCode::kOversized);
  EXPECT_THROW(bad.read_reply(), std::runtime_error);  // closed
  EXPECT_EQ(collect(false, good, spec, 50), expected);
  EXPECT_GE(server.stats().errors, 2u);
}

// Issue 21: the cap on queued replies is checked between requests, not
// only between reads, so pipelined requests in one read cannot grow the
// server past it; every request is still answered once the client reads.
TEST_P(OpenEdgeServerModes, APipeliningClientThatDoesNotReadIsHeldAtTheOutputCap) {
  Fixture f;
  ServerConfig c = config(GetParam());
  c.max_pending_output = 4096;
  Server server(f.db, f.pool, c);
  server.start();
  Client client("127.0.0.1", server.port());
  constexpr int kRequests = 2000;  // ~40 KB of requests, ~100x the cap in replies
  std::vector<std::byte> frames;
  for (int i = 0; i < kRequests; ++i) encode(FindRequest{0, Column::kNumKey, i % 400}, frames);
  client.send_raw(frames.data(), frames.size());
  for (int i = 0; i < kRequests; ++i) {
    const auto reply = client.read_reply();
    ASSERT_TRUE(std::holds_alternative<RecordsReply>(reply)) << "request " << i;
    EXPECT_EQ(num_key(std::get<RecordsReply>(reply).entries.at(0).record), i % 400);
  }
  EXPECT_EQ(server.stats().requests, u64{kRequests});
  EXPECT_GT(server.stats().peak_pending_output, 0u);
  EXPECT_LE(server.stats().peak_pending_output, 4096u + 1024u) << "more than the cap plus one reply was queued";
}

TEST_P(OpenEdgeServerModes, ADisconnectMidRequestFreesItsCursors) {
  Fixture f;
  Server server(f.db, f.pool, config(GetParam()));
  server.start();
  {
    Client client("127.0.0.1", server.port());
    client.records(OpenRequest{0, Column::kNumKey, 0, 400, 10});
    client.records(JoinRequest{article_join(0, 400), 5});
    EXPECT_EQ(server.stats().open_cursors, 2);
    std::vector<std::byte> frame;
    encode(NextRequest{1, 10}, frame);
    client.send_raw(frame.data(), frame.size() - 3);  // then gone, mid-request
  }
  EXPECT_TRUE(eventually([&] { return server.stats().active_connections == 0; }));
  EXPECT_EQ(server.stats().open_cursors, 0);
  Client next("127.0.0.1", server.port());
  EXPECT_EQ(next.records(FindRequest{1, Column::kNumKey, 3}).entries.size(), 1u);
}

TEST_P(OpenEdgeServerModes, TheConnectionLimitIsEnforcedWithAClearError) {
  Fixture f;
  Server server(f.db, f.pool, config(GetParam(), 2));
  server.start();
  Client a("127.0.0.1", server.port()), b("127.0.0.1", server.port());
  EXPECT_EQ(a.records(FindRequest{0, Column::kNumKey, 1}).entries.size(), 1u);
  EXPECT_EQ(b.records(FindRequest{0, Column::kNumKey, 2}).entries.size(), 1u);
  Client c("127.0.0.1", server.port());
  const auto reply = c.read_reply();  // refused without asking
  ASSERT_TRUE(std::holds_alternative<ErrorReply>(reply));
  EXPECT_EQ(std::get<ErrorReply>(reply).code, ErrorCode::kConnectionLimit);
  EXPECT_NE(std::get<ErrorReply>(reply).message.find("at most 2"), std::string::npos);
  EXPECT_EQ(server.stats().connections_refused, 1u);
  a.close();
  EXPECT_TRUE(eventually([&] { return server.stats().active_connections == 1; }));
  Client d("127.0.0.1", server.port());  // room again
  EXPECT_EQ(d.records(FindRequest{0, Column::kNumKey, 4}).entries.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Modes, OpenEdgeServerModes,
                         ::testing::Values(ServerMode::kSingleThreaded, ServerMode::kMultiThreaded),
                         [](const auto& info) {
                           return info.param == ServerMode::kSingleThreaded ? "SingleThreaded" : "MultiThreaded";
                         });

TEST(OpenEdgeServer, BadAddressesAreClearErrors) {
  Fixture f;
  ServerConfig c;
  c.address = "not-an-address";
  EXPECT_THROW(Server(f.db, f.pool, c), std::invalid_argument);
  Server first(f.db, f.pool, ServerConfig{});
  ServerConfig same;
  same.port = first.port();
  try {
    Server second(f.db, f.pool, same);
    FAIL() << "a second server bound the same port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(first.port())), std::string::npos);
  }
}

TEST(OpenEdgeLadder, EveryStepDoesTheSameWork) {
  LadderConfig c;
  c.database = {300, 1, 1, ""};
  c.servers = 2;
  c.users = 4;
  c.prefetch = 20;
  const auto result = run_ladder(c);
  ASSERT_EQ(result.runs.size(), 4u);
  for (const auto& run : result.runs) {
    EXPECT_EQ(run.tuples, result.runs[0].tuples) << kLadderSteps[run.step].name;
    EXPECT_EQ(run.checksum, result.runs[0].checksum);
    EXPECT_EQ(run.access.record_reads, result.runs[0].access.record_reads);  // the server reads the same records
    EXPECT_EQ(run.user_seconds.size(), 4u);
  }
  EXPECT_GT(result.runs[0].tuples, 0u);
  EXPECT_EQ(result.runs[0].cache.refixes, 0u);  // baseline: lookups only
  EXPECT_GT(result.runs[1].cache.refixes, 0u);
  // Every step looks up or re-fixes the same index and data blocks, all hits after the warm-up.
  for (const auto& run : result.runs) {
    EXPECT_EQ(run.cache.misses, 0u);
    EXPECT_EQ(run.cache.refix_failures, 0u);
    EXPECT_EQ(run.access.index_blocks, result.runs[0].access.index_blocks);
  }
  EXPECT_EQ(result.runs[1].cache.hits + result.runs[1].cache.refixes, result.runs[0].cache.hits);
  const u32 buckets = result.runs[0].frames * 25 / 100;
  EXPECT_EQ(result.runs[0].latches, std::min(1024u, buckets));  // OpenEdge 11.7's fixed 1024, at most one a bucket
  EXPECT_EQ(result.runs[1].latches, buckets);                   // -hashLatchFactor 100: one a bucket
  EXPECT_LT(result.runs[3].wire.messages_sent, result.runs[2].wire.messages_sent);
  EXPECT_LT(result.runs[3].records_received, result.runs[2].records_received);
  // Users as threads of this process do the same work as users in client processes.
  LadderConfig threads = c;
  threads.client_processes = false;
  threads.steps = {0};
  const auto in_threads = run_ladder(threads);
  EXPECT_EQ(in_threads.runs[0].tuples, result.runs[0].tuples);
  EXPECT_EQ(in_threads.runs[0].checksum, result.runs[0].checksum);
  EXPECT_EQ(in_threads.runs[0].wire.messages_sent, result.runs[0].wire.messages_sent);
  LadderConfig bad = c;
  bad.users = 1;
  EXPECT_THROW(run_ladder(bad), std::invalid_argument);  // fewer users than servers
  bad.users = 5;
  bad.max_clients = 2;
  EXPECT_THROW(run_ladder(bad), std::invalid_argument);  // more users than 2 servers of -Ma 2 take
}
