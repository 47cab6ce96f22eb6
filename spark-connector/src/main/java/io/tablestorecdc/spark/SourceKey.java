package io.tablestorecdc.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The primary-key columns of a source's rows: the key its tables share, or, for tables of different
 * keys read in the {@value OutputSchema#VALUES} layout, the union of their keys by name (in the
 * order the tables name them), where a column some table lacks is optional: null in that table's
 * rows.
 *
 * @param columns the key columns of the rows
 * @param optional the names of the columns some table's key lacks
 */
record SourceKey(List<PrimaryKeyColumn> columns, Set<String> optional) implements Serializable {

    private static final long serialVersionUID = 1L;

    SourceKey {
        columns = List.copyOf(columns);
        optional = Set.copyOf(optional);
    }

    /** The key of one table, or of tables that all have it. */
    static SourceKey of(List<PrimaryKeyColumn> key) {
        return new SourceKey(key, Set.of());
    }

    /**
     * The union of the tables' keys.
     *
     * @param keys each table's key, in the order the source names the tables
     * @throws IllegalArgumentException when two tables have a key column of one name and two types,
     *     naming both and the fix
     */
    static SourceKey union(Map<String, List<PrimaryKeyColumn>> keys) {
        Map<String, PrimaryKeyColumn> columns = new LinkedHashMap<>();
        Map<String, String> firstTable = new LinkedHashMap<>();
        for (Map.Entry<String, List<PrimaryKeyColumn>> table : keys.entrySet()) {
            for (PrimaryKeyColumn column : table.getValue()) {
                PrimaryKeyColumn known = columns.putIfAbsent(column.name(), column);
                firstTable.putIfAbsent(column.name(), table.getKey());
                if (known != null && known.type() != column.type()) {
                    throw new IllegalArgumentException(
                            "Primary-key column '"
                                    + column.name()
                                    + "' is "
                                    + column.type()
                                    + " in table '"
                                    + table.getKey()
                                    + "' but "
                                    + known.type()
                                    + " in table '"
                                    + firstTable.get(column.name())
                                    + "': the rows of one source have one column of each name."
                                    + " Read such tables in separate queries, or leave one out"
                                    + " (table.exclude, or drop it from table.name).");
                }
            }
        }
        Set<String> optional = new HashSet<>();
        for (String name : columns.keySet()) {
            for (List<PrimaryKeyColumn> key : keys.values()) {
                if (key.stream().noneMatch(c -> c.name().equals(name))) {
                    optional.add(name);
                }
            }
        }
        return new SourceKey(new ArrayList<>(columns.values()), optional);
    }

    /** Whether every table has every column (then no key column is ever null). */
    boolean shared() {
        return optional.isEmpty();
    }

    /**
     * Whether rows of a table of key {@code key} fit: each of its columns is one of these, of the
     * same type, and it has every column that is not optional.
     */
    boolean fits(List<PrimaryKeyColumn> key) {
        if (!columns.containsAll(key)) {
            return false;
        }
        for (PrimaryKeyColumn column : columns) {
            if (!optional.contains(column.name()) && !key.contains(column)) {
                return false;
            }
        }
        return true;
    }
}
