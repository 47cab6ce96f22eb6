package io.tablestorecdc.flink.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.sink.RichSinkFunction;

/**
 * An exactly-once test sink (run it with parallelism 1): records become visible only when the
 * checkpoint that holds them completes, as in a two-phase-commit sink. Commits are keyed by
 * checkpoint id, so re-committing after a restore is idempotent.
 */
@SuppressWarnings("deprecation")
public final class CommittingListSink extends RichSinkFunction<String>
        implements CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final Map<String, ConcurrentSkipListMap<Long, List<String>>> COMMITTED =
            new ConcurrentHashMap<>();

    private final String name;
    private transient List<String> current;
    private transient TreeMap<Long, List<String>> pending;
    private transient ListState<String> state;

    public CommittingListSink(String name) {
        this.name = name;
        COMMITTED.putIfAbsent(name, new ConcurrentSkipListMap<>());
    }

    /** Everything committed so far, in checkpoint order. */
    public static List<String> committed(String name) {
        List<String> out = new ArrayList<>();
        COMMITTED.get(name).values().forEach(out::addAll);
        return out;
    }

    /** How many checkpoints have committed (with or without values). */
    public static int commits(String name) {
        return COMMITTED.get(name).size();
    }

    @Override
    public void invoke(String value, Context context) {
        current.add(value);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        pending.put(context.getCheckpointId(), current);
        current = new ArrayList<>();
        List<String> flat = new ArrayList<>();
        pending.forEach((id, values) -> values.forEach(v -> flat.add(id + "\u0001" + v)));
        flat.add(context.getCheckpointId() + "\u0001"); // marks even an empty checkpoint
        state.update(flat);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        current = new ArrayList<>();
        pending = new TreeMap<>();
        state =
                context.getOperatorStateStore()
                        .getListState(new ListStateDescriptor<>("pending", Types.STRING));
        if (context.isRestored()) {
            TreeMap<Long, List<String>> restored = new TreeMap<>();
            for (String entry : state.get()) {
                int cut = entry.indexOf('\u0001');
                List<String> values =
                        restored.computeIfAbsent(
                                Long.parseLong(entry.substring(0, cut)), k -> new ArrayList<>());
                if (cut + 1 < entry.length()) {
                    values.add(entry.substring(cut + 1));
                }
            }
            // The restored checkpoint completed: what it held is committed.
            restored.forEach((id, values) -> COMMITTED.get(name).putIfAbsent(id, values));
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        var done = pending.headMap(checkpointId, true);
        done.forEach((id, values) -> COMMITTED.get(name).putIfAbsent(id, values));
        done.clear();
    }
}
