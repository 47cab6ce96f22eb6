package io.tablestorecdc.checkpoint.tunnel;

import java.util.HashMap;
import java.util.Map;

/**
 * One string instance per column name within a response. The SDK decodes a new string for every
 * column name of every record, and the engines' row converters check per record whether a record
 * has the same columns as the one before: with shared instances that check is an identity
 * comparison on the reading thread instead of a comparison of characters the engine's thread would
 * otherwise never touch.
 */
final class ColumnNames {

    private final Map<String, String> known = new HashMap<>();

    /** The instance of {@code name} this response saw first. */
    String of(String name) {
        String first = known.putIfAbsent(name, name);
        return first == null ? name : first;
    }
}
