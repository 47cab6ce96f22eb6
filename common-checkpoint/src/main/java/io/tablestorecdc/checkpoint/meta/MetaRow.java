package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One meta-table row: its key and its attribute columns by name.
 *
 * @param key the primary key
 * @param columns attribute columns, sorted by name
 */
@Internal
public record MetaRow(MetaRowKey key, Map<String, MetaValue> columns) {

    public MetaRow {
        Objects.requireNonNull(key, "key");
        columns = Collections.unmodifiableMap(new TreeMap<>(columns));
    }

    public static MetaRow of(MetaRowKey key) {
        return new MetaRow(key, Map.of());
    }

    /** This row with one more (or a replaced) string column. */
    public MetaRow with(String column, String value) {
        return with(column, MetaValue.text(value));
    }

    /** This row with one more (or a replaced) integer column. */
    public MetaRow with(String column, long value) {
        return with(column, MetaValue.integer(value));
    }

    public MetaRow with(String column, MetaValue value) {
        TreeMap<String, MetaValue> next = new TreeMap<>(columns);
        next.put(column, value);
        return new MetaRow(key, next);
    }

    public Optional<MetaValue> column(String name) {
        return Optional.ofNullable(columns.get(name));
    }
}
