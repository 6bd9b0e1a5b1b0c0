// E2's client/server hop, deterministically (no timing): MariaDB's one server
// thread per connection, a reply carrying the rows for every request, and
// bad requests refused with one line.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "keycache/key_cache.hpp"
#include "sysbench/point_client.hpp"
#include "sysbench/point_server.hpp"
#include "sysbench/select_random_points.hpp"

using namespace dbrepro;
using namespace dbrepro::sysbench;

namespace {
using Cache = keycache::KeyCache<AdaptiveMutex>;

// A table, its key cache and a server on a socket in a private folder.
struct ServedTable {
  std::string dir;
  SbtestMeta meta;
  std::unique_ptr<SbtestTable> table;
  std::unique_ptr<Cache> cache;
  std::unique_ptr<PointServer<Cache>> server;

  explicit ServedTable(KeyDistribution distribution = KeyDistribution::kSpecial) {
    dir = (std::filesystem::temp_directory_path() / ("kc_server_" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    meta = build_sbtest(dir, 3000, 11, 1024, distribution);
    table = std::make_unique<SbtestTable>(dir);
    keycache::KeyCacheConfig config;
    config.segments = 4;
    config.buffer_bytes = u64{meta.index_blocks} * 2 * 1024;
    cache = std::make_unique<Cache>(config);
    cache->attach(SbtestTable::kIndexFileId, table->index_file());
    server = std::make_unique<PointServer<Cache>>(*table, cache.get(), dir + "/s.sock");
  }
  ~ServedTable() {
    server.reset();
    std::filesystem::remove_all(dir);
  }
  const std::string& path() const { return server->path(); }
  ConnectionServer& connections() { return server->connections(); }
};

// A client that fails instead of hanging if a reply never comes.
std::unique_ptr<PointClient> client_of(const std::string& path) {
  auto client = std::make_unique<PointClient>(path);
  timeval limit{30, 0};
  ::setsockopt(client->fd(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  return client;
}

std::vector<std::byte> raw_frame(u32 length, std::vector<u8> body) {
  std::vector<std::byte> frame(4);
  std::memcpy(frame.data(), &length, 4);
  for (u8 b : body) frame.push_back(std::byte{b});
  return frame;
}

std::vector<u8> le32(u32 v) { return {u8(v), u8(v >> 8), u8(v >> 16), u8(v >> 24)}; }
}  // namespace

// A connection that sends half a request holds its own server thread only:
// another connection is served meanwhile, by another thread.
TEST(KeyCacheServer, OneServerThreadPerConnection) {
  ServedTable t;
  auto stalled = client_of(t.path());
  stalled->send_bytes(raw_frame(5 + 4, {'P'}));  // a length and one byte of its body: its thread waits for the rest
  auto a = client_of(t.path());
  auto b = client_of(t.path());
  PointReply reply;
  ASSERT_TRUE(a->query({1500, 7}, reply));
  EXPECT_TRUE(reply.ok) << reply.error;
  ASSERT_TRUE(b->query({3}, reply));
  EXPECT_TRUE(reply.ok) << reply.error;
  const ServerStats stats = t.connections().stats();
  EXPECT_EQ(stats.connections, 3u);
  EXPECT_EQ(stats.active, 3u);
  const auto threads = t.connections().connection_threads();
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_EQ(std::set<std::thread::id>(threads.begin(), threads.end()).size(), 3u) << "a thread per connection";
  for (const auto& id : threads) {
    EXPECT_NE(id, t.connections().acceptor_thread());
    EXPECT_NE(id, std::this_thread::get_id());
  }
  stalled.reset();  // the stalled request ends mid-frame: its connection closes, the others go on
  ASSERT_TRUE(a->query({9}, reply));
  EXPECT_TRUE(reply.ok);
  a.reset();
  b.reset();
  t.connections().wait_idle();
  EXPECT_EQ(t.connections().stats().active, 0u);
  EXPECT_EQ(t.connections().stats().peak_active, 3u);
}

// Every request gets one reply carrying the rows MyISAM would return: the
// same rows (and digest) as the query run on the cache directly, each row
// sbtest's 188 bytes, its k one of the points.
TEST(KeyCacheServer, AReplyWithTheRowsForEveryRequest) {
  ServedTable t;
  PointSelect<Cache> direct(*t.table, *t.cache);
  std::vector<std::unique_ptr<PointClient>> clients;
  for (int c = 0; c < 3; ++c) clients.push_back(client_of(t.path()));
  Random rng(5);
  u64 sent = 0, rows = 0;
  for (int round = 0; round < 20; ++round) {
    std::vector<std::vector<u32>> points(clients.size());
    for (size_t c = 0; c < clients.size(); ++c) {  // every connection has a request in flight at once
      for (int i = 0; i < 10; ++i) points[c].push_back(draw_key(rng, t.meta.distribution, t.meta.rows));
      clients[c]->send_bytes(points_frame(points[c]));
      ++sent;
    }
    for (size_t c = 0; c < clients.size(); ++c) {
      PointReply reply;
      ASSERT_TRUE(clients[c]->read_reply(reply));
      ASSERT_TRUE(reply.ok) << reply.error;
      const PointsResult expected = direct.select_points(points[c]);
      EXPECT_EQ(reply.rows, expected.rows);
      EXPECT_EQ(reply.checksum, expected.checksum);
      EXPECT_EQ(reply.row_bytes.size(), reply.rows * sizeof(SbtestRow));
      EXPECT_EQ(reply_checksum(reply), reply.checksum) << "the bytes sent are the rows";
      for (u64 i = 0; i < reply.rows; ++i)
        EXPECT_NE(std::find(points[c].begin(), points[c].end(), reply.row(i).k), points[c].end());
      rows += reply.rows;
    }
  }
  EXPECT_GT(rows, sent);  // the special distribution: points in the hot band match many rows
  // A seed request: the server draws the points as the client would have.
  PointReply reply;
  ASSERT_TRUE(clients[0]->call(seed_frame(10, 77), reply));
  Random draw(77);
  std::vector<u32> points;
  for (int i = 0; i < 10; ++i) points.push_back(draw_key(draw, t.meta.distribution, t.meta.rows));
  EXPECT_EQ(reply.rows, direct.select_points(points).rows);
  EXPECT_EQ(reply.checksum, direct.select_points(points).checksum);
  clients.clear();
  t.connections().wait_idle();
  const ServerStats stats = t.connections().stats();
  EXPECT_EQ(stats.closed.requests, sent + 1);
  EXPECT_EQ(stats.closed.replies, sent + 1);
  EXPECT_EQ(stats.closed.refused, 0u);
}

// A bad request gets an 'E' reply of one line and the connection goes on;
// a frame too long to skip is refused and the connection closed.
TEST(KeyCacheServer, BadRequestsAreRefusedWithOneLine) {
  ServedTable t(KeyDistribution::kUniform);
  auto client = client_of(t.path());
  std::vector<u8> mismatch = {'P'};
  for (u8 b : le32(3)) mismatch.push_back(b);
  for (u8 b : le32(5)) mismatch.push_back(b);  // P=3 but one point
  std::vector<u8> zero = {'P'};
  for (u8 b : le32(0)) zero.push_back(b);
  std::vector<u8> too_many = {'S'};
  for (u8 b : le32(kMaxPoints + 1)) too_many.push_back(b);
  for (int i = 0; i < 8; ++i) too_many.push_back(0);
  const std::vector<std::pair<std::vector<std::byte>, std::string>> bad = {
      {raw_frame(0, {}), "empty"},
      {raw_frame(3, {'X', 1, 2}), "unknown request kind"},
      {raw_frame(2, {'P', 1}), "no point count"},
      {raw_frame(static_cast<u32>(zero.size()), zero), "P: must be in 1..10000, got 0"},
      {raw_frame(static_cast<u32>(too_many.size()), too_many), "P: must be in 1..10000, got 10001"},
      {raw_frame(static_cast<u32>(mismatch.size()), mismatch), "does not match"},
  };
  PointReply reply;
  for (const auto& [frame, reason] : bad) {
    ASSERT_TRUE(client->call(frame, reply)) << reason;
    EXPECT_FALSE(reply.ok) << reason;
    EXPECT_NE(reply.error.find(reason), std::string::npos) << reply.error;
    EXPECT_EQ(reply.error.find('\n'), std::string::npos) << "one line: " << reply.error;
    ASSERT_TRUE(client->query({100, 200}, reply)) << "the connection is still served after: " << reason;
    EXPECT_TRUE(reply.ok) << reply.error;
  }
  // Too long to skip: refused, then closed.
  ASSERT_TRUE(client->call(raw_frame(kMaxRequestBody + 1, {'P'}), reply));
  EXPECT_FALSE(reply.ok);
  EXPECT_NE(reply.error.find("exceeds"), std::string::npos) << reply.error;
  EXPECT_EQ(reply.error.find('\n'), std::string::npos);
  EXPECT_FALSE(client->read_reply(reply)) << "the server closed the connection";
  client.reset();
  t.connections().wait_idle();
  const ServerStats stats = t.connections().stats();
  EXPECT_EQ(stats.closed.refused, bad.size() + 1);
  EXPECT_EQ(stats.closed.replies, bad.size());
}

TEST(KeyCacheServer, WithoutACacheAConnectionIsRefused) {
  ServedTable t;
  t.server->serve_with(nullptr);
  auto client = client_of(t.path());
  PointReply reply;
  ASSERT_TRUE(client->query({5}, reply));
  EXPECT_FALSE(reply.ok);
  EXPECT_NE(reply.error.find("no key cache"), std::string::npos) << reply.error;
  EXPECT_FALSE(client->read_reply(reply));
}

TEST(KeyCacheServer, StopsWithConnectionsOpen) {
  ServedTable t;
  auto client = client_of(t.path());
  PointReply reply;
  ASSERT_TRUE(client->query({5}, reply));
  t.connections().stop();  // wakes the connection's thread, joins it
  EXPECT_FALSE(client->read_reply(reply));
  EXPECT_THROW(PointClient another(t.path()), std::runtime_error);
}
