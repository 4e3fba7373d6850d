#pragma once
// gridctl commands that live in their own files.
namespace gridpeer::client {

/// gridctl bench-att: ATT query round trip and queries/s against one peer.
int bench_att_command(int argc, char** argv);

/// gridctl compose: a docker-compose testbed directory from a topology.
int compose_command(int argc, char** argv);
/// gridctl ca init | issue: the grid's CA and the certificates it signs.
int ca_command(int argc, char** argv);

}  // namespace gridpeer::client
