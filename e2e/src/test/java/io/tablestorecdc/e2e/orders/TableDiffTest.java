package io.tablestorecdc.e2e.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TableDiffTest {

    @Test
    void equalTablesMatch() {
        assertThat(TableDiff.between(rows("a", 1L, "b", 2L), rows("a", 1L, "b", 2L), 5).matches())
                .isTrue();
    }

    @Test
    void namesMissingExtraAndChangedRowsInKeyOrderUpToTheLimit() {
        TableDiff diff =
                TableDiff.between(
                        rows("a", 1L, "b", 2L, "c", 3L), rows("b", 9L, "c", 3L, "d", 4L), 2);

        assertThat(diff.matches()).isFalse();
        assertThat(diff.total()).isEqualTo(3);
        assertThat(diff.differences())
                .containsExactly(
                        "a: missing in the replica (source has {qty=1})",
                        "b: source {qty=2} but replica {qty=9}");
    }

    @Test
    void aRowOnlyInTheReplicaIsReported() {
        TableDiff diff = TableDiff.between(rows(), rows("d", 4L), 5);

        assertThat(diff.differences())
                .containsExactly(
                        "d: in the replica but deleted in the source (replica has {qty=4})");
    }

    private static SortedMap<String, Map<String, Object>> rows(Object... keyAndQty) {
        SortedMap<String, Map<String, Object>> rows = new TreeMap<>();
        for (int i = 0; i < keyAndQty.length; i += 2) {
            rows.put((String) keyAndQty[i], Map.of("qty", keyAndQty[i + 1]));
        }
        return rows;
    }
}
