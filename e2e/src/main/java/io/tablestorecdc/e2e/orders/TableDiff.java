package io.tablestorecdc.e2e.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeSet;

/**
 * How a replica differs from its source, row by row.
 *
 * @param differences the first differences found, in key order, as readable lines
 * @param total how many rows differ in all
 */
public record TableDiff(List<String> differences, int total) {

    public TableDiff {
        differences = List.copyOf(differences);
    }

    /** Compares {@code replica} with {@code source}, keeping the first {@code limit} lines. */
    public static TableDiff between(
            SortedMap<String, Map<String, Object>> source,
            SortedMap<String, Map<String, Object>> replica,
            int limit) {
        TreeSet<String> keys = new TreeSet<>(source.keySet());
        keys.addAll(replica.keySet());
        List<String> lines = new ArrayList<>();
        int total = 0;
        for (String key : keys) {
            Map<String, Object> want = source.get(key);
            Map<String, Object> got = replica.get(key);
            if (!Objects.equals(want, got)) {
                total++;
                if (lines.size() < limit) {
                    lines.add(describe(key, want, got));
                }
            }
        }
        return new TableDiff(lines, total);
    }

    public boolean matches() {
        return total == 0;
    }

    private static String describe(String key, Map<String, Object> want, Map<String, Object> got) {
        if (got == null) {
            return key + ": missing in the replica (source has " + want + ")";
        }
        if (want == null) {
            return key + ": in the replica but deleted in the source (replica has " + got + ")";
        }
        return key + ": source " + want + " but replica " + got;
    }
}
