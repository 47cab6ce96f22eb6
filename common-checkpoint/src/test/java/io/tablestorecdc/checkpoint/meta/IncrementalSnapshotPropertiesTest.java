package io.tablestorecdc.checkpoint.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.emulator.testkit.ManualClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Random schedules of batches, splits, merges, crashes and purges, written twice: in full on every
 * batch (format 1's layout) and incrementally. Every committed batch must read back as exactly the
 * positions its full snapshot holds, from a consumer that remembers nothing, and retention must
 * never leave a kept snapshot unreadable.
 */
class IncrementalSnapshotPropertiesTest {

    private static final String TUNNEL = "tunnel-p";
    private static final int SCHEDULES = 150;
    private static final int BATCHES = 40;

    @Test
    void everyCommittedBatchReadsBackAsItsFullSnapshotWhateverTheSchedule() {
        for (long seed = 1; seed <= SCHEDULES; seed++) {
            Schedule schedule = new Schedule(seed);
            try {
                schedule.run();
            } catch (RuntimeException e) {
                throw new AssertionError("schedule " + seed + ": " + schedule.trace, e);
            }
        }
    }

    private static final class Schedule {
        private final long seed;
        private final Random random;
        private final ManualClock clock = new ManualClock(1_700_000_000_000L);
        private final InMemoryMetaTableClient fullTable = new InMemoryMetaTableClient();
        private final InMemoryMetaTableClient deltaTable = new InMemoryMetaTableClient();
        private final int fullEvery;
        private final double readShare;
        private final TunnelMeta full;
        private TunnelMeta delta;
        private Map<String, ChannelCheckpoint> state = new TreeMap<>();
        private final Map<BatchToken, Map<String, ChannelCheckpoint>> committed = new HashMap<>();
        private final List<BatchToken> commitOrder = new ArrayList<>();
        private int nextChannel;
        private int keep = 1;
        private int oldestKept;
        private long rowsFull;
        private long rowsDelta;
        private final List<String> trace = new ArrayList<>();

        Schedule(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            this.fullEvery = 2 + random.nextInt(10);
            this.readShare = random.nextBoolean() ? 0.05 : 0.3 + random.nextDouble() * 0.6;
            this.full = new MetaTable(fullTable, clock, 1).tunnel(TUNNEL);
            this.delta = parallel(deltaTable, clock, fullEvery);
        }

        void run() {
            for (int i = 0; i < 4 + random.nextInt(30); i++) {
                adopt();
            }
            BatchSnapshot first = new BatchSnapshot(TUNNEL, BatchToken.random(), state);
            full.seed(first, 0);
            delta.seed(first, 0);
            commit(first.token());
            for (long seq = 1; seq <= BATCHES; seq++) {
                clock.advance(1 + random.nextInt(5));
                oneBatch(seq);
                if (random.nextDouble() < 0.4) {
                    purge();
                }
            }
            assertThat(rowsDelta)
                    .as("schedule %d: incremental rows never exceed full rows", seed)
                    .isLessThanOrEqualTo(rowsFull);
        }

        private String adopt() {
            String id = String.format("c-%05d", nextChannel++);
            state.put(id, ChannelCheckpoint.adopted(id, ChannelType.STREAM, at(id, 0)));
            return id;
        }

        private static ChannelPosition at(String id, long step) {
            return ChannelPosition.at("tok-" + id + "-" + step, step % 3);
        }

        private void oneBatch(long seq) {
            BatchToken start = commitOrder.get(commitOrder.size() - 1);
            Map<String, ChannelCheckpoint> next = new TreeMap<>();
            List<String> read = new ArrayList<>();
            List<String> open = new ArrayList<>();
            state.forEach(
                    (id, c) -> {
                        if (!c.isFinished()) {
                            open.add(id);
                        }
                    });
            for (Map.Entry<String, ChannelCheckpoint> e : state.entrySet()) {
                ChannelCheckpoint c = e.getValue();
                if (c.isFinished() && random.nextDouble() < 0.1) {
                    continue; // a tombstone leaves the snapshot
                }
                if (!c.isFinished() && random.nextDouble() < readShare) {
                    read.add(e.getKey());
                    double outcome = random.nextDouble();
                    if (outcome < 0.2) {
                        // a read that found nothing: same position, but a pending channel is
                        // reading now
                        next.put(e.getKey(), c.advancedTo(c.position(), 0, SequenceInfo.NONE));
                    } else {
                        boolean ends = outcome > 0.95;
                        next.put(
                                e.getKey(),
                                c.advancedTo(
                                        ends ? ChannelPosition.finished() : at(e.getKey(), seq),
                                        1 + random.nextInt(50),
                                        new SequenceInfo(1, seq, random.nextInt(3))));
                    }
                } else {
                    next.put(e.getKey(), c.carriedForward());
                }
            }
            state = next;
            if (random.nextDouble() < 0.15 && !open.isEmpty()) {
                adopt(); // a split's or merge's child, carried until the next batch reads it
                adopt();
            }
            List<ChannelCheckpoint> carried = new ArrayList<>();
            List<ChannelCheckpoint> fills = new ArrayList<>();
            state.values().forEach(c -> (read.contains(c.channelId()) ? fills : carried).add(c));

            BatchToken token = BatchToken.random();
            if (random.nextDouble() < 0.15) {
                // the consumer dies while planning; its restart plans the batch under a new token
                deltaTable.crashAfter(random.nextInt(4));
                try {
                    plan(delta, deltaTable, token, seq, start, carried);
                } catch (MetaTableException crashed) {
                    // died
                }
                deltaTable.recover();
                restart();
                token = BatchToken.random();
            }
            rowsFull += plan(full, fullTable, token, seq, start, carried);
            rowsDelta += plan(delta, deltaTable, token, seq, start, carried);
            if (random.nextDouble() < 0.1) {
                restart(); // died after planning: the batch is re-run from the offset log
                plan(delta, deltaTable, token, seq, start, carried);
            }
            rowsFull += fill(fullTable, full, token, fills);
            rowsDelta += fill(deltaTable, delta, token, fills);
            if (random.nextDouble() < 0.1) {
                restart(); // died after the fills: the re-run fills the same ends again
                fill(deltaTable, delta, token, fills);
            }
            commit(token);
        }

        private long plan(
                TunnelMeta store,
                InMemoryMetaTableClient table,
                BatchToken token,
                long seq,
                BatchToken start,
                List<ChannelCheckpoint> carried) {
            int before = table.rowCount();
            store.carryForward(token, seq, Optional.of(start), state.keySet(), carried);
            return table.rowCount() - before;
        }

        private static long fill(
                InMemoryMetaTableClient table,
                TunnelMeta store,
                BatchToken token,
                List<ChannelCheckpoint> fills) {
            int before = table.rowCount();
            store.fillAll(token, fills);
            return table.rowCount() - before;
        }

        /** A store whose reads are sliced even for small snapshots, its requests run inline. */
        private static TunnelMeta parallel(
                InMemoryMetaTableClient table, ManualClock clock, int fullEvery) {
            return new MetaTable(table, clock, fullEvery, Optional.of(Runnable::run), 2)
                    .tunnel(TUNNEL);
        }

        private void restart() {
            delta = parallel(deltaTable, clock, fullEvery);
        }

        private void commit(BatchToken token) {
            trace.add("commit " + token);
            Map<String, ChannelCheckpoint> expected = Map.copyOf(state);
            committed.put(token, expected);
            commitOrder.add(token);
            assertThat(full.read(token).channels())
                    .as("schedule %d, full layout", seed)
                    .isEqualTo(expected);
            assertThat(new MetaTable(deltaTable).tunnel(TUNNEL).read(token).channels())
                    .as("schedule %d, incremental layout, read by a fresh consumer", seed)
                    .isEqualTo(expected);
            assertThat(delta.read(token).channels())
                    .as("schedule %d, incremental layout, read by its writer", seed)
                    .isEqualTo(expected);
        }

        private void purge() {
            keep = 1 + random.nextInt(4);
            int max = 1 + random.nextInt(3);
            trace.add("purge keep " + keep + " max " + max + " log " + delta.batchLog());
            if (random.nextDouble() < 0.3) {
                deltaTable.crashAfter(random.nextInt(8));
                try {
                    delta.purge(keep, max);
                } catch (MetaTableException crashed) {
                    // died in the middle of the purge
                }
                deltaTable.recover();
                restart();
            } else {
                delta.purge(keep, max);
            }
            full.purge(keep, max);
            TunnelMeta fresh = new MetaTable(deltaTable).tunnel(TUNNEL);
            // an earlier purge with a smaller retention may have deleted older batches already
            oldestKept = Math.max(oldestKept, commitOrder.size() - keep);
            List<BatchToken> kept = commitOrder.subList(oldestKept, commitOrder.size());
            for (BatchToken token : kept) {
                assertThat(fresh.read(token).channels())
                        .as(
                                "schedule %d: kept batch %s after a purge keeping %d",
                                seed, token, keep)
                        .isEqualTo(committed.get(token));
            }
        }
    }
}
