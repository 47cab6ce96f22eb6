package io.tablestorecdc.e2e.flink;

import io.tablestorecdc.e2e.Console;
import io.tablestorecdc.e2e.EngineStats;
import io.tablestorecdc.e2e.ProgressLine;
import io.tablestorecdc.e2e.orders.OrderChange;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the sink subtasks of one local demo job report to: stats and the console. Found by run id,
 * because the job's functions are serialized and the local job shares this JVM.
 */
final class FlinkRun {

    private static final Map<String, FlinkRun> RUNS = new ConcurrentHashMap<>();

    private final EngineStats stats;
    private final Console console;
    private final long baseTotal;
    private long lastCheckpoint;
    private long changesAtLastLine;
    private Optional<Long> lagMillis = Optional.empty();

    private FlinkRun(EngineStats stats, Console console, long baseTotal) {
        this.stats = stats;
        this.console = console;
        this.baseTotal = baseTotal;
    }

    static void register(String runId, EngineStats stats, Console console, long baseTotal) {
        RUNS.put(runId, new FlinkRun(stats, console, baseTotal));
    }

    static void unregister(String runId) {
        RUNS.remove(runId);
    }

    static Optional<FlinkRun> of(String runId) {
        return Optional.ofNullable(RUNS.get(runId));
    }

    /** Counts changes a subtask wrote to the replica; the newest commit time gives the lag. */
    synchronized void applied(List<OrderChange> changes) {
        stats.recordApplied(changes);
        long newest = changes.stream().mapToLong(c -> c.commitMicros).max().orElse(0);
        if (newest > 0) {
            long lag = Math.max(0, System.currentTimeMillis() - newest / 1000);
            lagMillis = Optional.of(lag);
            stats.recordLag(lag);
        }
    }

    /** Prints one line for each completed checkpoint that carried changes (once per id). */
    synchronized void checkpointCompleted(long checkpointId) {
        if (checkpointId <= lastCheckpoint) {
            return;
        }
        lastCheckpoint = checkpointId;
        long rows = stats.changes() - changesAtLastLine;
        if (rows == 0) {
            return;
        }
        changesAtLastLine = stats.changes();
        stats.recordUnit();
        ProgressLine line =
                new ProgressLine(
                        "ckpt",
                        checkpointId,
                        rows,
                        stats.changes(),
                        ChannelGauges.current(),
                        lagMillis,
                        stats.baseRows(),
                        baseTotal);
        console.say("flink", line.format());
    }
}
