package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeChannel;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drives merger, gate and commit plan against {@link FakeTunnelService} the way a connector does,
 * through random schedules of reads, commits, crashes, splits and merges, and records what a
 * property must never see. Records are numbered from 0 per channel.
 *
 * <p>Like a lagging server, the fake opens stream roots at once even in a BaseAndStream tunnel, so
 * the client's own stage gate is what keeps them unread until base data is finished.
 */
final class LineageSimulation {

    /** One step of a schedule. */
    sealed interface Step permits Append, Split, Merge, Batch, Tick, Purge {}

    record Append(int pick, int records) implements Step {}

    record Split(int pick) implements Step {}

    record Merge(int pick) implements Step {}

    /** A batch: plan, read up to {@code rowCap} per channel, then end as {@code outcome} says. */
    record Batch(int rowCap, Outcome outcome) implements Step {}

    /** The server forgets terminated channels whose children it released. */
    record Purge() implements Step {}

    /** The clock moves on (the channel list cache may expire). */
    record Tick(int seconds) implements Step {}

    enum Outcome {
        /** Engine commit, then the server push. */
        COMMIT_AND_PUSH,
        /** Engine commit, then the process dies before the push. */
        COMMIT_THEN_CRASH,
        /** The process dies after reading, before the engine commit. */
        CRASH_BEFORE_COMMIT
    }

    /** A read that became part of a committed batch. */
    record CommittedRead(String channelId, int from, int to) {}

    private static final String TUNNEL = "sim-tunnel";
    private static final int BASE_LENGTH = 3;

    final FakeTunnelService server;
    private final TunnelClientId client;
    private int nextChild;
    private final TunnelType tunnelType;
    private final CheckpointMerger merger;
    private final AtomicLong nanos = new AtomicLong();
    private ChannelListCache cache;
    private Map<String, ChannelPosition> pushed = Map.of();

    final List<BatchSnapshot> committedHistory = new ArrayList<>();
    final List<CommittedRead> committedReads = new ArrayList<>();

    /** Breaches of the gate and handshake rules, in the words a failing property prints. */
    final List<String> violations = new ArrayList<>();

    LineageSimulation(TunnelType tunnelType, int baseChannels, int streamRoots) {
        this.tunnelType = tunnelType;
        this.server = new FakeTunnelService("table", TUNNEL, "tunnel-" + TUNNEL, tunnelType);
        for (int i = 0; i < baseChannels; i++) {
            server.channel("base" + i, ChannelType.BASE_DATA)
                    .appendRecords("base" + i, BASE_LENGTH)
                    .seal("base" + i);
        }
        for (int i = 0; i < streamRoots; i++) {
            server.channel("s" + i, ChannelType.STREAM);
        }
        this.client = server.connect("tunnel-" + TUNNEL, "simulation", Duration.ofMinutes(1));
        this.merger =
                new CheckpointMerger(
                        TUNNEL, tunnelType, Optional.empty(), VanishedChannelPolicy.FAIL);
        this.cache = freshCache();
    }

    private ChannelListCache freshCache() {
        return new ChannelListCache(
                () -> server.describeTunnel("table", TUNNEL).channels(),
                Duration.ofSeconds(5),
                nanos::get);
    }

    Optional<BatchSnapshot> committed() {
        return committedHistory.isEmpty()
                ? Optional.empty()
                : Optional.of(committedHistory.get(committedHistory.size() - 1));
    }

    void run(List<Step> steps) {
        for (Step step : steps) {
            apply(step);
        }
    }

    void apply(Step step) {
        List<String> active = activeStreams();
        int pick = step instanceof Append a ? a.pick() : step instanceof Split p ? p.pick() : 0;
        String picked = active.isEmpty() ? null : active.get(pick % active.size());
        if (step instanceof Append a && picked != null) {
            server.appendRecords(picked, a.records());
        } else if (step instanceof Split && picked != null) {
            server.split(picked, "c" + nextChild++, "c" + nextChild++);
        } else if (step instanceof Merge m && active.size() >= 2) {
            int i = (m.pick() % active.size()) % (active.size() - 1);
            server.merge("c" + nextChild++, active.get(i), active.get(i + 1));
        } else if (step instanceof Tick t) {
            nanos.addAndGet(Duration.ofSeconds(t.seconds()).toNanos());
        } else if (step instanceof Purge) {
            server.forgetFinished();
        } else if (step instanceof Batch b) {
            batch(b.rowCap(), b.outcome());
        }
    }

    /** Stream channels that may still get records, in the order the server added them. */
    private List<String> activeStreams() {
        return server.channelIds().stream()
                .filter(id -> server.channel(id).type() == ChannelType.STREAM)
                .filter(id -> !server.channel(id).sealed())
                .toList();
    }

    /** Runs committed, pushed batches with a fresh listing until nothing is left to read. */
    void drain() {
        for (int i = 0; i < 200; i++) {
            cache.invalidate();
            boolean progressed = batch(Integer.MAX_VALUE, Outcome.COMMIT_AND_PUSH);
            if (!progressed) {
                return;
            }
        }
        violations.add("drain did not settle within 200 batches");
    }

    /** Returns true if the batch read or pushed anything. */
    private boolean batch(int rowCap, Outcome outcome) {
        MergeResult plan =
                merger.merge(
                        committed(),
                        cache.channels(),
                        id -> server.checkpointOf(id).map(ChannelPosition::at));
        checkReadable(plan);
        Map<String, ChannelCheckpoint> next = new TreeMap<>(plan.entries());
        List<CommittedRead> reads = new ArrayList<>();
        for (ChannelCheckpoint start : plan.readableEntries()) {
            server.batchSize(rowCap);
            ReadResult read =
                    server.readRecords(client, start.channelId(), start.position().token());
            int from = FakeTunnelService.offsetOf(start.position());
            int count = read.page().size();
            reads.add(new CommittedRead(start.channelId(), from, from + count));
            next.put(start.channelId(), start.advancedTo(read.next(), count, SequenceInfo.NONE));
        }
        if (outcome == Outcome.CRASH_BEFORE_COMMIT) {
            crash();
            return true;
        }
        commit(new BatchSnapshot(TUNNEL, BatchToken.random(), next), reads);
        if (outcome == Outcome.COMMIT_THEN_CRASH) {
            crash();
            return true;
        }
        return push() || reads.stream().anyMatch(r -> r.to() > r.from());
    }

    private void commit(BatchSnapshot snapshot, List<CommittedRead> reads) {
        committedHistory.add(snapshot);
        committedReads.addAll(reads);
    }

    private boolean push() {
        BatchSnapshot committed = committed().orElseThrow();
        ServerCommitPlan plan = ServerCommitPlan.forCommitted(committed, pushed);
        plan.positions().forEach(this::pushToServer);
        for (String id : plan.finishes()) {
            if (!committed.channels().get(id).isFinished()) {
                violations.add("finished pushed for " + id + " before a commit finished it");
            }
            pushToServer(id, ChannelPosition.finished());
            cache.markFinished(id);
        }
        pushed = plan.pushedAfter(pushed);
        return !plan.finishes().isEmpty();
    }

    private void pushToServer(String channelId, ChannelPosition position) {
        server.checkpoint(client, channelId, position, server.channel(channelId).sequence() + 1);
    }

    /** Everything in memory is lost; the meta table (committed history) and server remain. */
    private void crash() {
        pushed = Map.of();
        cache = freshCache();
    }

    /** Rule checks at planning time, against durable state only. */
    private void checkReadable(MergeResult plan) {
        Map<String, ChannelCheckpoint> durable =
                committed().map(BatchSnapshot::channels).orElse(Map.of());
        for (String id : plan.readable()) {
            FakeChannel channel = server.channel(id);
            for (String parent : channel.parents()) {
                ChannelCheckpoint p = durable.get(parent);
                if (p == null || !p.isFinished()) {
                    violations.add(id + " readable before its parent " + parent + " is finished");
                }
            }
            if (durable.containsKey(id) && durable.get(id).isFinished()) {
                violations.add("tombstone " + id + " readable again");
            }
            if (tunnelType == TunnelType.BASE_AND_STREAM && channel.type() == ChannelType.STREAM) {
                checkBaseFinished(id, durable);
            }
        }
    }

    private void checkBaseFinished(String streamId, Map<String, ChannelCheckpoint> durable) {
        for (String id : server.channelIds()) {
            if (server.channel(id).type() == ChannelType.BASE_DATA
                    && !(durable.containsKey(id) && durable.get(id).isFinished())) {
                violations.add(streamId + " readable before base channel " + id + " finished");
            }
        }
    }
}
