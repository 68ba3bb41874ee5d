// An epoll TCP echo server on timerwheel's event_loop that closes each
// connection after a time without input (its idle timeout). Every read
// restarts the connection's timer: a cancel and an `after`, O(1) each on the
// wheel, however many connections are open.
//
//   idle_timeout_server [--port=N] [--timeout-ms=N] [--tick-ms=N]
//
// It listens on 127.0.0.1 (port 0, the default, lets the kernel choose),
// prints "listening on 127.0.0.1:PORT" and, on SIGINT or SIGTERM, its counts
// ("accepted=... idle_closed=... peer_closed=... errors=...") before it exits.
// tests/event_loop/idle_timeout_server_test.cpp runs it with a thousand
// clients.
#include <timerwheel/event_loop.hpp>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <unordered_map>

namespace {

using namespace std::chrono_literals;
using loop_type = timerwheel::event_loop<>;
using timer_id = decltype(std::declval<loop_type&>().timers().after(1ms, [] {}));

struct options {
  int port = 0;
  std::chrono::milliseconds timeout = 1000ms;
  std::chrono::milliseconds tick = 1ms;
};

struct counts {
  unsigned long accepted = 0;
  unsigned long idle_closed = 0;  // closed by the idle timer
  unsigned long peer_closed = 0;  // the peer closed, half-closed or reset
  unsigned long errors = 0;       // accept failures (EMFILE, ...)
};

class server {
 public:
  server(loop_type& loop, const options& opt) : loop_(loop), timeout_(opt.timeout) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listener_ < 0) fail("socket");
    const int one = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(opt.port));
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fail("bind");
    if (::listen(listener_, SOMAXCONN) != 0) fail("listen");
    socklen_t len = sizeof addr;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    loop_.watch(listener_, EPOLLIN, [this](std::uint32_t) { accept_all(); });
  }

  ~server() {
    while (!connections_.empty()) close_connection(connections_.begin()->first);
    loop_.unwatch(listener_);
    ::close(listener_);
  }

  server(const server&) = delete;
  server& operator=(const server&) = delete;

  int port() const { return port_; }
  const counts& stats() const { return counts_; }

 private:
  struct connection {
    timer_id idle{};
    std::string out;       // echoed bytes the socket did not take yet
    bool writing = false;  // watched for EPOLLOUT (while `out` waits) instead of input
  };

  [[noreturn]] static void fail(const char* what) {
    std::perror(what);
    std::exit(1);
  }

  void accept_all() {
    for (;;) {
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        if (errno == EINTR || errno == ECONNABORTED) continue;
        // EMFILE and the like: the pending connection waits in the backlog.
        // The listener stays readable, so stop watching it for a while
        // instead of spinning on it; idle timeouts free descriptors meanwhile.
        ++counts_.errors;
        loop_.modify(listener_, 0);
        loop_.timers().after(100ms, [this] { loop_.modify(listener_, EPOLLIN); });
        return;
      }
      ++counts_.accepted;
      auto& c = connections_[fd];
      c = std::make_unique<connection>();
      restart_idle_timer(fd, *c);
      loop_.watch(fd, EPOLLIN | EPOLLRDHUP, [this, fd](std::uint32_t ev) { on_ready(fd, ev); });
    }
  }

  // The connection's idle timer starts again: it fires `timeout_` after now.
  void restart_idle_timer(int fd, connection& c) {
    loop_.timers().cancel(c.idle);
    c.idle = loop_.timers().after(timeout_, [this, fd] {
      ++counts_.idle_closed;
      close_connection(fd);
    });
  }

  void on_ready(int fd, std::uint32_t events) {
    connection& c = *connections_.at(fd);
    if (events & EPOLLOUT) {
      if (!flush(fd, c)) return;
    }
    if (!c.out.empty()) return;  // still waiting for room to write
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) read_all(fd, c);
  }

  // Reads what is there and echoes it; the end of input (a close or a
  // half-close) or an error closes the connection once its echo is out.
  void read_all(int fd, connection& c) {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) {
        restart_idle_timer(fd, c);
        c.out.append(buf, static_cast<std::size_t>(n));
        if (!flush(fd, c)) return;
        if (!c.out.empty()) return;  // the socket is full: wait for EPOLLOUT, read no more
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      // 0: the peer closed or half-closed its side; < 0: reset or error.
      ++counts_.peer_closed;
      close_connection(fd);
      return;
    }
  }

  // Writes the pending echo; watches EPOLLOUT while some is left, EPOLLIN
  // again once it is all out. Returns false if it closed the connection.
  bool flush(int fd, connection& c) {
    while (!c.out.empty()) {
      const ssize_t n = ::send(fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (n > 0) {
        c.out.erase(0, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!c.writing) loop_.modify(fd, EPOLLOUT);  // read nothing more until the peer reads
        c.writing = true;
        return true;
      }
      ++counts_.peer_closed;
      close_connection(fd);
      return false;
    }
    if (c.writing) loop_.modify(fd, EPOLLIN | EPOLLRDHUP);
    c.writing = false;
    return true;
  }

  // Cancels the timer, stops watching and closes: in this order, so that
  // neither a timer nor an event of this connection can reach a later one
  // that the kernel gives the same descriptor number.
  void close_connection(int fd) {
    const auto it = connections_.find(fd);
    if (it == connections_.end()) return;
    loop_.timers().cancel(it->second->idle);
    loop_.unwatch(fd);
    ::close(fd);
    connections_.erase(it);
  }

  loop_type& loop_;
  std::chrono::milliseconds timeout_;
  int listener_ = -1;
  int port_ = 0;
  std::unordered_map<int, std::unique_ptr<connection>> connections_;
  counts counts_;
};

loop_type* running_loop = nullptr;

extern "C" void on_signal(int) {
  if (running_loop != nullptr) running_loop->stop();  // async-signal-safe
}

bool parse(std::string_view arg, std::string_view name, long& out) {
  if (!arg.starts_with(name)) return false;
  const std::string value(arg.substr(name.size()));
  char* end = nullptr;
  out = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || out < 0) {
    std::fprintf(stderr, "bad value in %.*s\n", static_cast<int>(arg.size()), arg.data());
    std::exit(2);
  }
  return true;
}

// As many descriptors as the hard limit allows: one per connection.
void raise_descriptor_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    long v = 0;
    const std::string_view arg = argv[i];
    if (parse(arg, "--port=", v)) {
      opt.port = static_cast<int>(v);
    } else if (parse(arg, "--timeout-ms=", v)) {
      opt.timeout = std::chrono::milliseconds(v);
    } else if (parse(arg, "--tick-ms=", v) && v > 0) {
      opt.tick = std::chrono::milliseconds(v);
    } else {
      std::fprintf(stderr, "usage: %s [--port=N] [--timeout-ms=N] [--tick-ms=N]\n", argv[0]);
      return 2;
    }
  }
  raise_descriptor_limit();

  loop_type loop(opt.tick);
  server srv(loop, opt);
  running_loop = &loop;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);

  std::printf("listening on 127.0.0.1:%d\n", srv.port());
  std::fflush(stdout);
  loop.run();

  const counts& c = srv.stats();
  std::printf("accepted=%lu idle_closed=%lu peer_closed=%lu errors=%lu\n", c.accepted,
              c.idle_closed, c.peer_closed, c.errors);
  return 0;
}
