package io.tablestorecdc.checkpoint.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowFieldsTest {

    private static final Row ROW =
            new Row(
                    PrimaryKeyBuilder.createPrimaryKeyBuilder()
                            .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromString("k1"))
                            .addPrimaryKeyColumn("seq", PrimaryKeyValue.fromLong(3))
                            .build(),
                    new Column[] {
                        // Out of order on purpose: the SDK sorts by name, newest version first.
                        new Column("b", ColumnValue.fromString("old"), 1),
                        new Column("a", ColumnValue.fromLong(1), 5),
                        new Column("b", ColumnValue.fromString("new"), 9),
                        new Column("z", ColumnValue.fromBoolean(true), 2)
                    });

    @Test
    void cellsComeInFieldOrderKeysByValueAttributesNewestVersion() {
        Object[] cells = new RowFields(List.of("b", "seq", "missing", "a", "pk")).cells(ROW);

        assertThat(cells).hasSize(5);
        assertThat(((Column) cells[0]).getValue()).isEqualTo(ColumnValue.fromString("new"));
        assertThat(cells[1]).isEqualTo(PrimaryKeyValue.fromLong(3));
        assertThat(cells[2]).isNull();
        assertThat(((Column) cells[3]).getValue()).isEqualTo(ColumnValue.fromLong(1));
        assertThat(cells[4]).isEqualTo(PrimaryKeyValue.fromString("k1"));
    }

    @Test
    void columnsNotAskedForAreLeftOut() {
        assertThat(new RowFields(List.of("pk")).cells(ROW))
                .containsExactly(PrimaryKeyValue.fromString("k1"));
        assertThat(new RowFields(List.of()).cells(ROW)).isEmpty();
    }

    @Test
    void aRowWithoutAttributesHasOnlyItsKeys() {
        Row keyOnly =
                new Row(
                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromString("k2"))
                                .build(),
                        new Column[0]);

        assertThat(new RowFields(List.of("a", "pk")).cells(keyOnly))
                .containsExactly(null, PrimaryKeyValue.fromString("k2"));
    }

    @Test
    void rowsWithOtherColumnsAtAPositionFindTheirOwnFields() {
        RowFields fields = new RowFields(List.of("a", "b", "z"));
        Row first = row(new Column("a", ColumnValue.fromLong(1), 1));
        Row second = row(new Column("b", ColumnValue.fromLong(2), 1));
        Row third = row(new Column("x", ColumnValue.fromLong(3), 1), column("z"));

        for (int round = 0; round < 3; round++) {
            assertThat(values(fields.cells(first))).containsExactly(1L, null, null);
            assertThat(values(fields.cells(second))).containsExactly(null, 2L, null);
            assertThat(values(fields.cells(third))).containsExactly(null, null, 9L);
        }
    }

    private static Row row(Column... columns) {
        return new Row(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("pk", PrimaryKeyValue.fromString("k"))
                        .build(),
                columns);
    }

    private static Column column(String name) {
        return new Column(new String(name.toCharArray()), ColumnValue.fromLong(9), 1);
    }

    private static List<Object> values(Object[] cells) {
        List<Object> out = new java.util.ArrayList<>();
        for (Object cell : cells) {
            out.add(cell == null ? null : ((Column) cell).getValue().asLong());
        }
        return out;
    }

    @Test
    void aNameGivenTwiceFillsBothFields() {
        Object[] cells = new RowFields(List.of("pk", "a", "pk", "a")).cells(ROW);

        assertThat(cells[2]).isEqualTo(cells[0]).isEqualTo(PrimaryKeyValue.fromString("k1"));
        assertThat(cells[3]).isSameAs(cells[1]);
        assertThat(((Column) cells[1]).getValue()).isEqualTo(ColumnValue.fromLong(1));
    }
}
