package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.annotation.Internal;

/** Decides which reader reads each unassigned channel. */
@Internal
interface SplitAssigner {

    /**
     * Plans the assignment of {@code splits}.
     *
     * @param load subtask to the number of channels it reads now, one key per registered reader
     * @return subtask to the splits it gets; every split exactly once
     */
    Map<Integer, List<ChannelSplit>> assign(
            Collection<ChannelSplit> splits, Map<Integer, Integer> load);

    /** Each split to the reader with the fewest channels (the lowest subtask on a tie). */
    static SplitAssigner balanced() {
        return (splits, load) -> {
            Map<Integer, Integer> counts = new TreeMap<>(load);
            Map<Integer, List<ChannelSplit>> plan = new TreeMap<>();
            for (ChannelSplit split : splits) {
                int subtask = leastLoaded(counts);
                counts.merge(subtask, 1, Integer::sum);
                plan.computeIfAbsent(subtask, k -> new ArrayList<>()).add(split);
            }
            return plan;
        };
    }

    private static int leastLoaded(Map<Integer, Integer> load) {
        int best = -1;
        int bestLoad = Integer.MAX_VALUE;
        for (Map.Entry<Integer, Integer> e : load.entrySet()) {
            if (e.getValue() < bestLoad) {
                best = e.getKey();
                bestLoad = e.getValue();
            }
        }
        return best;
    }
}
