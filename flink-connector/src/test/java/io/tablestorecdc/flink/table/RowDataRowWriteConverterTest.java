package io.tablestorecdc.flink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.write.RowWrite;
import io.tablestorecdc.checkpoint.write.WriteMode;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/** SQL rows to row changes: row kinds, write modes and the source's change columns. */
class RowDataRowWriteConverterTest {

    private static final RowType ROW =
            (RowType)
                    DataTypes.ROW(
                                    DataTypes.FIELD("id", DataTypes.STRING().notNull()),
                                    DataTypes.FIELD("v", DataTypes.BIGINT()),
                                    DataTypes.FIELD("name", DataTypes.STRING()))
                            .getLogicalType();

    private static GenericRowData row(RowKind kind, String id, Long v, String name) {
        return GenericRowData.ofKind(
                kind,
                StringData.fromString(id),
                v,
                name == null ? null : StringData.fromString(name));
    }

    @Test
    void rowKindsMapToPutsDeletesAndNothing() {
        RowDataRowWriteConverter c =
                new RowDataRowWriteConverter(ROW, new int[] {0}, WriteMode.PUT);
        RowWrite insert = c.convert(row(RowKind.INSERT, "a", 1L, null)).orElseThrow();
        assertThat(insert.kind()).isEqualTo(RowWrite.Kind.PUT);
        assertThat(insert.puts()).containsOnly(Map.entry("v", CellValue.ofInteger(1)));
        assertThat(c.convert(row(RowKind.UPDATE_AFTER, "a", 2L, "x")).orElseThrow().kind())
                .isEqualTo(RowWrite.Kind.PUT);
        assertThat(c.convert(row(RowKind.UPDATE_BEFORE, "a", 1L, null))).isEmpty();
        assertThat(c.convert(row(RowKind.DELETE, "a", 1L, null)).orElseThrow().kind())
                .isEqualTo(RowWrite.Kind.DELETE);
    }

    @Test
    void updateModeDeletesNullColumns() {
        RowDataRowWriteConverter c =
                new RowDataRowWriteConverter(ROW, new int[] {0}, WriteMode.UPDATE);
        RowWrite w = c.convert(row(RowKind.INSERT, "a", 1L, null)).orElseThrow();
        assertThat(w.kind()).isEqualTo(RowWrite.Kind.UPDATE);
        assertThat(w.deletes()).containsExactly("name");
    }

    @Test
    void theSourcesChangeColumnsApplyAsTheChange() {
        RowType withOps =
                (RowType)
                        DataTypes.ROW(
                                        DataTypes.FIELD("id", DataTypes.STRING().notNull()),
                                        DataTypes.FIELD("v", DataTypes.BIGINT()),
                                        DataTypes.FIELD("name", DataTypes.STRING()),
                                        DataTypes.FIELD("_op", DataTypes.STRING()),
                                        DataTypes.FIELD(
                                                "_column_ops",
                                                DataTypes.MAP(
                                                        DataTypes.STRING(), DataTypes.STRING())),
                                        DataTypes.FIELD("_seq", DataTypes.STRING()))
                                .getLogicalType();
        RowDataRowWriteConverter c =
                new RowDataRowWriteConverter(withOps, new int[] {0}, WriteMode.PUT);
        GenericRowData update =
                GenericRowData.of(
                        StringData.fromString("a"),
                        null,
                        null,
                        StringData.fromString("UPDATE"),
                        new GenericMapData(
                                Map.of(
                                        StringData.fromString("name"),
                                        StringData.fromString("DELETE_ALL_VERSION"))),
                        StringData.fromString("2:100:3"));
        RowWrite w = c.convert(update).orElseThrow();
        assertThat(w.kind()).isEqualTo(RowWrite.Kind.UPDATE);
        assertThat(w.puts()).isEmpty();
        assertThat(w.deletes()).containsExactly("name");
        assertThat(w.sequence()).isEqualTo(new SequenceInfo(2, 100, 3));
    }

    @Test
    void aColumnTablestoreCannotStoreIsRefusedAtPlanning() {
        RowType withTime =
                (RowType)
                        DataTypes.ROW(
                                        DataTypes.FIELD("id", DataTypes.STRING().notNull()),
                                        DataTypes.FIELD("at", DataTypes.TIMESTAMP(3)))
                                .getLogicalType();
        assertThatThrownBy(
                        () -> new RowDataRowWriteConverter(withTime, new int[] {0}, WriteMode.PUT))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("Column at has type TIMESTAMP(3)")
                .hasMessageContaining("CAST the value in the query");
    }
}
