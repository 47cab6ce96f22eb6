package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cells of a fixed list of fields in rows a {@link TableReader} read, found in one pass over
 * each row's columns: a field named like a primary-key column gets that column's value, a field
 * named like an attribute column gets the attribute's newest version (the first of its name: a
 * row's columns come sorted by name, newest version first). An engine's converter builds this once
 * and turns the cells into its own values by position, instead of looking each field up by name in
 * every row (which the SDK does with a binary search or, for key columns, a map it builds per row).
 */
@Internal
public final class RowFields implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int size;
    private final HashMap<String, Integer> positions;

    /** For a field whose name an earlier field has, that field's position; else -1. */
    private final int[] sameAs;

    private final boolean repeats;

    /**
     * Per column position of a row, the name last seen there and its field: rows of one response
     * share their name instances (see {@code PlainBufferRows}), so an identity check finds the
     * field without hashing. One immutable pair per slot, so that threads sharing this (lookups)
     * never see a name with another name's field.
     */
    private transient Seen[] seen;

    /**
     * @param names the fields' column names, in the engine row's order; a name may be absent from
     *     every row (its cell stays null), or named twice (both get the cell)
     */
    public RowFields(List<String> names) {
        this.size = names.size();
        this.positions = new HashMap<>();
        this.sameAs = new int[size];
        boolean repeated = false;
        for (int i = 0; i < size; i++) {
            Integer first = positions.putIfAbsent(names.get(i), i);
            sameAs[i] = first == null ? -1 : first;
            repeated |= first != null;
        }
        this.repeats = repeated;
    }

    private record Seen(String name, Integer field) {}

    /**
     * The row's cells, one per field in order: a {@link PrimaryKeyValue} for a primary-key column,
     * the newest {@link Column} for an attribute column, null where the row holds no such column. A
     * key column wins over an attribute of the same name.
     */
    public Object[] cells(Row row) {
        Object[] cells = new Object[size];
        Column[] columns = row.getColumns();
        Seen[] known = seen(columns.length);
        for (int c = 0; c < columns.length; c++) {
            Column column = columns[c];
            String name = column.getName();
            Seen last = known[c];
            Integer at;
            if (last != null && last.name() == name) {
                at = last.field();
            } else {
                at = positions.get(name);
                known[c] = new Seen(name, at);
            }
            if (at != null && cells[at] == null) {
                cells[at] = column;
            }
        }
        for (PrimaryKeyColumn key : row.getPrimaryKey().getPrimaryKeyColumns()) {
            Integer at = positions.get(key.getName());
            if (at != null) {
                cells[at] = key.getValue();
            }
        }
        if (repeats) {
            for (int i = 0; i < size; i++) {
                if (sameAs[i] >= 0) {
                    cells[i] = cells[sameAs[i]];
                }
            }
        }
        return cells;
    }

    private Seen[] seen(int columns) {
        Seen[] known = seen;
        if (known == null || known.length < columns) {
            known = new Seen[Math.max(columns, 8)];
            seen = known;
        }
        return known;
    }

    @Override
    public String toString() {
        Map<Integer, String> byPosition = new TreeMap<>();
        positions.forEach((name, at) -> byPosition.put(at, name));
        return "RowFields" + byPosition.values() + (repeats ? " (names repeated)" : "");
    }
}
