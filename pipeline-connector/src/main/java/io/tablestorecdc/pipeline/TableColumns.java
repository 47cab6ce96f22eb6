package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.cdc.common.schema.Schema;

/**
 * A table's columns as the pipeline source delivers them: the primary-key columns (DescribeTable's,
 * in order, NOT NULL), then the attribute columns with their types, in the order they became known.
 * Immutable; {@link #with} gives the next version.
 */
final class TableColumns implements Serializable {

    private static final long serialVersionUID = 1L;

    private final LinkedHashMap<String, CellValue.Type> key;
    private final LinkedHashMap<String, CellValue.Type> attributes;

    TableColumns(Map<String, CellValue.Type> key, Map<String, CellValue.Type> attributes) {
        this.key = new LinkedHashMap<>(key);
        this.attributes = new LinkedHashMap<>(attributes);
        this.attributes.keySet().removeAll(this.key.keySet());
    }

    Map<String, CellValue.Type> key() {
        return key;
    }

    Map<String, CellValue.Type> attributes() {
        return attributes;
    }

    /** Every column, the key's first. */
    List<String> names() {
        List<String> names = new ArrayList<>(key.keySet());
        names.addAll(attributes.keySet());
        return names;
    }

    /** The type of column {@code name}, or null when there is none. */
    CellValue.Type typeOf(String name) {
        CellValue.Type type = key.get(name);
        return type != null ? type : attributes.get(name);
    }

    /** These columns with attribute {@code name} of {@code type} (added last, or retyped). */
    TableColumns with(String name, CellValue.Type type) {
        LinkedHashMap<String, CellValue.Type> next = new LinkedHashMap<>(attributes);
        next.put(name, type);
        return new TableColumns(key, next);
    }

    /** The Flink CDC schema of these columns. */
    Schema schema() {
        Schema.Builder builder = Schema.newBuilder();
        key.forEach((name, type) -> builder.physicalColumn(name, ColumnTypes.of(type).notNull()));
        attributes.forEach((name, type) -> builder.physicalColumn(name, ColumnTypes.of(type)));
        return builder.primaryKey(new ArrayList<>(key.keySet())).build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableColumns other
                && key.equals(other.key)
                && List.copyOf(attributes.entrySet())
                        .equals(List.copyOf(other.attributes.entrySet()));
    }

    @Override
    public int hashCode() {
        return key.hashCode() * 31 + attributes.hashCode();
    }

    @Override
    public String toString() {
        return "TableColumns{key=" + key + ", attributes=" + attributes + "}";
    }
}
