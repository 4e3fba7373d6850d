@0xa72d46b9164555f6;
# The gridpeer wire protocol: one Envelope per frame, framed by Cap'n Proto's
# own segment table (docs/protocol.md). Times are int64 microseconds of the
# grid's virtual time; durations likewise. Version 2 (1 had no site state in
# attReply, and sent the job's submit time, CPUs and input size with outputs).

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("gridpeer::wire");

const protocolVersion :UInt16 = 2;

struct Job {
  id @0 :UInt64;          # unique in the grid: the origin's id in the top bits
  origin @1 :UInt32;
  cpus @2 :Int32;
  submitUs @3 :Int64;
  requestedUs @4 :Int64;  # the user's estimate, at the origin's clock speed
  runUs @5 :Int64;        # the emulator's real run time, at the origin's speed
  inputBytes @6 :UInt64;
  outputBytes @7 :UInt64;
}

struct Requirements {
  job @0 :UInt64;
  origin @1 :UInt32;
  cpus @2 :Int32;
  requestedUs @3 :Int64;
  originMhz @4 :Int32;
  inputBytes @5 :UInt64;
  outputBytes @6 :UInt64;
}

struct JobRecord {
  id @0 :UInt64;
  origin @1 :UInt32;
  executedOn @2 :UInt32;
  cpus @3 :Int32;
  submitUs @4 :Int64;
  startUs @5 :Int64;
  finishUs @6 :Int64;
  endUs @7 :Int64;        # output back at the origin
  inputBytes @8 :UInt64;
  outputBytes @9 :UInt64;
  outcome @10 :Outcome;
  reason @11 :Text;       # why, when not completed
  recoveries @12 :UInt32; # times its origin took it up again from its journal after a crash
  parts @13 :List(Part);  # a job split over servers: each server's share (empty: it ran whole)
  struct Part {
    server @0 :UInt32;
    cpus @1 :Int32;
    lowestShare @2 :Float64;  # the least share of its link it ran at (1: never held back)
  }
  enum Outcome {
    completed @0;
    lost @1;              # held by a peer that went away
    rejected @2;          # can never fit anywhere it was offered
  }
}

struct Hello {
  version @0 :UInt16;
  role @1 :Role;
  peerId @2 :UInt32;      # peers only
  name @3 :Text;
  site @4 :Text;
  nodes @5 :Int32;
  cpusPerNode @6 :Int32;
  mhz @7 :Int32;
  timeScale @8 :Float64;  # virtual seconds per real second; peers must agree
  epochUnixUs @9 :Int64;  # real time of virtual time 0; peers adopt the earliest
  algorithm @10 :Text;
  bootId @11 :UInt64;     # peers: new at every start (a restart empties a peer; a partition does not)
  journaled @12 :Bool;    # peers: restarts from a journal (--state-dir): a new boot id keeps what it had promised
  address @13 :Text;      # peers: host:port where other peers reach it (a member that joins is dialed there)
  joining @14 :Bool;      # peers: asks to join the grid (peerId unset): answered with every member, then closed
  membership @15 :Bool;   # peers: it keeps the grid's members and takes memberSync (older peers do not)
  incarnation @16 :UInt64; # peers: its starts (its journal's count, or drawn without one)
  enum Role {
    peer @0;
    client @1;
  }
}

struct AttQuery {
  query @0 :UInt64;
  requirements @1 :Requirements;
}

struct AttReply {
  query @0 :UInt64;
  job @1 :UInt64;
  attUs @2 :Int64;        # int64 max: the job can never run there
  awtUs @3 :Int64;
  ru @4 :Float64;
  # What a site-selection rule may weigh besides ATT and RU (absent: 0).
  freeCpus @5 :Int32;     # CPUs of the nodes idle now
  totalCpus @6 :Int32;
  mhz @7 :Int32;
  queueLength @8 :UInt32; # jobs waiting in its local queue
}

# An attReply from a peer that co-allocates: what it could hold of a part of
# the job, and its own link to the grid (the star makes link state local).
# A peer that does not co-allocate sends the plain attReply, byte for byte.
struct AttReplyWithPart {
  reply @0 :AttReply;
  partCpus @1 :Int32;             # CPUs it could hold for a part of the job now
  linkCapacityMbps @2 :Float64;   # its link to the grid
  linkDemandMbps @3 :Float64;     # what the parts on that link demand (Jones et al. 2004, eq. 1)
}

struct Volunteer {
  ru @0 :Float64;
}

# Hand-off (origin -> executor): offer, accept or reject, commit, and an accept
# with hosting set once the executor has the job. Every retry is idempotent by
# job id and attempt; the executor hosts a job only once it is committed (or
# its input, sent only after the commit, has come), and a message of an older
# attempt never moves the job (docs/fault-injection.md).
struct JobOffer {
  job @0 :Job;
  originMhz @1 :Int32;
  attempt @2 :UInt32;       # the origin's offers of one job, counted from 1
}

struct JobAccept {
  job @0 :UInt64;
  attempt @1 :UInt32;
  hosting @2 :Bool;         # false: the offer is taken; true: the job is here (after the commit)
}

struct JobReject {
  job @0 :UInt64;
  reason @1 :Text;          # for people
  attempt @2 :UInt32;
  code @3 :Code;
  enum Code {
    cannotFit @0;
    draining @1;
    notOrigin @2;
    idInUse @3;
    unknownOffer @4;
    outOfRange @5;
    reservations @6;
  }
}

struct JobCommit {
  job @0 :UInt64;
  attempt @1 :UInt32;
  again @2 :Bool;         # asked again after a crash: an executor that ran the job sends its output again
}

# Data staging: a header, then payload chunks until payloadBytes have come.
# The payload is the modelled size divided by the data scale.
struct TransferBegin {
  job @0 :UInt64;
  kind @1 :Kind;
  bytes @2 :UInt64;         # modelled size
  payloadBytes @3 :UInt64;  # what crosses the wire
  submitUs @4 :Int64;       # unused since version 2: the origin holds the job
  startUs @5 :Int64;        # outputs: when the job ran, by the executor's clock
  finishUs @6 :Int64;
  cpus @7 :Int32;           # unused since version 2
  inputBytes @8 :UInt64;    # unused since version 2
  attempt @9 :UInt32;       # inputs: the hand-off attempt they belong to
  enum Kind {
    input @0;
    output @1;
  }
}

struct DataChunk {
  job @0 :UInt64;
  kind @1 :TransferBegin.Kind;
  payload @2 :Data;
}

# Executor -> origin: the job has finished; its output is on its way.
struct Completion {
  job @0 :UInt64;
  startUs @1 :Int64;
  finishUs @2 :Int64;
}

struct Heartbeat {
  sentUs @0 :Int64;
}

struct Error {
  code @0 :Code;
  detail @1 :Text;
  enum Code {
    malformed @0;
    versionMismatch @1;
    unknownMessage @2;
    frameTooLarge @3;
    unknownPeer @4;
    configMismatch @5;
    notAccepted @6;
  }
}

# gridctl -> peer
struct Submit {
  job @0 :Job;              # id 0: the peer assigns one
}
# A bag of 1-CPU jobs in one frame, answered by one submitAck per job in
# order: the peer takes them all before it reads anything else, so a peer run
# with --bag-grouping groups the whole bag in one round (Ang et al. 2007).
struct SubmitBag {
  bag @0 :UInt32;           # the user's number for the bag, > 0
  jobs @1 :List(Job);       # ids 0: the peer assigns them
}
struct SubmitAck {
  job @0 :UInt64;
  accepted @1 :Bool;
  reason @2 :Text;
}
struct StatusRequest {}
struct PeerStatus {
  peerId @0 :UInt32;
  name @1 :Text;
  nowUs @2 :Int64;
  gridQueue @3 :UInt32;
  localQueue @4 :UInt32;
  running @5 :UInt32;
  awaitingInput @6 :UInt32;
  ru @7 :Float64;
  connectedPeers @8 :List(UInt32);
  completed @9 :UInt64;
  submitted @10 :UInt64;
  jobsSent @11 :UInt64;
  jobsReceived @12 :UInt64;
  draining @13 :Bool;
  lost @14 :UInt64;
  recovered @15 :UInt64;    # own jobs taken up again from the journal at this start
  incarnation @16 :UInt64;  # starts of this peer (its journal's count, or drawn without one)
  members @17 :List(MemberStatus);  # every other member this peer knows
}
# A member as the peer asked sees it (gridctl status).
struct MemberStatus {
  index @0 :UInt32;
  name @1 :Text;
  address @2 :Text;
  state @3 :MemberUpdate.State;
  incarnation @4 :UInt64;   # its starts, from its last hello (0: never connected)
  sinceUs @5 :Int64;        # virtual time of its last change of state
  site @6 :Int32;
  nodes @7 :Int32;
  cpusPerNode @8 :Int32;
  mhz @9 :Int32;
}
struct ResultsRequest {
  from @0 :UInt64;          # index of the first record wanted
  max @1 :UInt32;
}
struct ResultsReply {
  records @0 :List(JobRecord);
  total @1 :UInt64;         # records held so far
}
# Centralized on real peers: an origin asks the central scheduler where its
# job should run; the answer names the server.
struct PlaceRequest {
  requirements @0 :Requirements;
}
struct Placement {
  job @0 :UInt64;
  server @1 :UInt32;
}

struct Drain {}
struct Shutdown {
  leave @0 :Bool;           # and leave the grid: partners count it as gone, not away
}
# Take submissions and offers again after a drain (an operator's request).
struct Undrain {}
struct Ack {}

# Who is in the grid (SWIM; docs/membership.md): peers exchange these among
# themselves. A peer of an older version answers them as an unknown message.
struct MemberCard {
  name @0 :Text;            # the member's certificate name
  address @1 :Text;         # host:port of its peer port
  site @2 :Int32;
  nodes @3 :Int32;
  cpusPerNode @4 :Int32;
  mhz @5 :Int32;
  index @6 :UInt32 = 4294967295;  # its server index in the grid (in job ids); unset: not given one yet
}
struct MemberUpdate {
  member @0 :Text;
  incarnation @1 :UInt32;
  state @2 :State;
  by @3 :Text;              # suspect: who suspects it
  card @4 :MemberCard;      # alive: how to reach it, what it brings
  hasCard @5 :Bool;
  enum State {
    alive @0;
    suspect @1;
    dead @2;
    left @3;
  }
}
struct MemberPing {
  seq @0 :UInt64;
  target @1 :Text;
  updates @2 :List(MemberUpdate);
}
struct MemberAck {
  seq @0 :UInt64;
  updates @1 :List(MemberUpdate);
}
struct MemberPingReq {
  seq @0 :UInt64;
  target @1 :Text;
  updates @2 :List(MemberUpdate);
}
struct MemberSync {
  members @0 :List(MemberUpdate);
  wantsAnswer @1 :Bool;
}

# Co-allocation among peers: the origin asks each part's peer to hold CPUs
# and link headroom under a lease, then commits or aborts every part; while
# the parts run it sends their common end and renews their leases
# (docs/coallocation.md, "Among peers").
struct PartPrepare {
  job @0 :Job;
  attempt @1 :UInt32;
  cpus @2 :Int32;
  demandMbps @3 :Float64;
  startUs @4 :Int64;
  leaseEndUs @5 :Int64;
  originMhz @6 :Int32;
  linkLimitMbps @7 :Float64;  # refuse if the link would carry more, this part included (0: no bound)
}
struct PartReport {
  job @0 :UInt64;
  attempt @1 :UInt32;
  state @2 :State;
  share @3 :Float64;      # its link's share, min(1, capacity / demand)
  endUs @4 :Int64;        # share: the end the part holds; finished: the end it ran to
  enum State {
    prepared @0;
    refused @1;
    share @2;
    finished @3;
    unknown @4;
  }
}
struct PartDecision {
  job @0 :UInt64;
  attempt @1 :UInt32;
  order @2 :Order;
  endUs @3 :Int64;
  leaseEndUs @4 :Int64;
  enum Order {
    commit @0;
    abort @1;
    renew @2;
  }
}

struct Envelope {
  union {
    hello @0 :Hello;
    attQuery @1 :AttQuery;
    attReply @2 :AttReply;
    volunteer @3 :Volunteer;
    jobOffer @4 :JobOffer;
    jobAccept @5 :JobAccept;
    jobReject @6 :JobReject;
    jobCommit @7 :JobCommit;
    transferBegin @8 :TransferBegin;
    dataChunk @9 :DataChunk;
    completion @10 :Completion;
    heartbeat @11 :Heartbeat;
    error @12 :Error;
    submit @13 :Submit;
    submitAck @14 :SubmitAck;
    statusRequest @15 :StatusRequest;
    status @16 :PeerStatus;
    resultsRequest @17 :ResultsRequest;
    results @18 :ResultsReply;
    drain @19 :Drain;
    shutdown @20 :Shutdown;
    ack @21 :Ack;
    placeRequest @22 :PlaceRequest;
    placement @23 :Placement;
    submitBag @24 :SubmitBag;
    undrain @25 :Undrain;
    memberPing @26 :MemberPing;
    memberAck @27 :MemberAck;
    memberPingReq @28 :MemberPingReq;
    memberSync @29 :MemberSync;
    partPrepare @30 :PartPrepare;
    partReport @31 :PartReport;
    partDecision @32 :PartDecision;
    attReplyWithPart @33 :AttReplyWithPart;
  }
}
