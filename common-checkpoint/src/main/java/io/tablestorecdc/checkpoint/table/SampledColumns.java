package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The attribute columns of a table as a sample of its rows shows them, for an engine that infers a
 * schema (a Tablestore table has none for attributes): each column's type is the one type its
 * values in the sample have, INTEGER with DOUBLE giving DOUBLE. Columns no sampled row holds are
 * not known. Not thread-safe.
 */
@Internal
public final class SampledColumns {

    private final Map<String, Set<CellValue.Type>> seen = new TreeMap<>();
    private long rows;

    /** Adds one row's attribute columns to the sample. */
    public void add(Row row) {
        rows++;
        for (Column column : row.getColumns()) {
            CellValue.Type type = TableCells.of(column.getName(), column.getValue()).type();
            seen.computeIfAbsent(column.getName(), k -> EnumSet.noneOf(CellValue.Type.class))
                    .add(type);
        }
    }

    /** The rows sampled. */
    public long rows() {
        return rows;
    }

    /**
     * Each column seen, by name, with its type.
     *
     * @throws IllegalArgumentException naming every column whose values have types that no one type
     *     holds, with the fix
     */
    public Map<String, CellValue.Type> types() {
        Map<String, CellValue.Type> types = new TreeMap<>();
        List<String> conflicts = new ArrayList<>();
        seen.forEach(
                (name, kinds) -> {
                    if (kinds.size() == 1) {
                        types.put(name, kinds.iterator().next());
                    } else if (kinds.equals(
                            EnumSet.of(CellValue.Type.INTEGER, CellValue.Type.DOUBLE))) {
                        types.put(name, CellValue.Type.DOUBLE);
                    } else {
                        conflicts.add(name + " holds " + kinds);
                    }
                });
        if (!conflicts.isEmpty()) {
            throw new IllegalArgumentException(
                    "The sampled rows give columns values of several types ("
                            + String.join("; ", conflicts)
                            + "), so no type can be inferred: declare the columns with a schema,"
                            + " or read the attributes as the map of their text.");
        }
        return types;
    }
}
