package io.tablestorecdc.checkpoint.tunnel;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One string instance per column name within a response. The SDK decodes a new string for every
 * column name of every record, and the engines' row converters check per record whether a record
 * has the same columns as the one before: with shared instances that check is an identity
 * comparison. The records of a response mostly name the same columns at the same positions, so a
 * name is first compared with the one last seen at its position (no hashing).
 */
final class ColumnNames {

    private final Map<String, String> known = new HashMap<>();
    private String[] atPosition = new String[8];

    /** The instance of {@code name} this response saw first. */
    String of(String name) {
        String first = known.putIfAbsent(name, name);
        return first == null ? name : first;
    }

    /** As {@link #of(String)}, for the name at {@code position} of a record's columns. */
    String of(int position, String name) {
        if (position < atPosition.length) {
            String last = atPosition[position];
            if (last != null && last.equals(name)) {
                return last;
            }
        } else {
            atPosition = Arrays.copyOf(atPosition, Math.max(position + 1, atPosition.length * 2));
        }
        String shared = of(name);
        atPosition[position] = shared;
        return shared;
    }
}
