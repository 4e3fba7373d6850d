#pragma once
// Boost.Asio with C++20 coroutines. Boost 1.74's awaitable.hpp uses
// std::exchange without including <utility>; include it first.
#include <utility>
// clang-format off
#include <boost/asio.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
// clang-format on

namespace gridpeer::transport {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::use_awaitable;

}  // namespace gridpeer::transport
