package io.tablestorecdc.emulator.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.core.protocol.OTSProtocolBuilder;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RecordColumn;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.condition.SingleColumnValueCondition;
import io.tablestorecdc.emulator.server.EmulatorError;
import io.tablestorecdc.emulator.table.CapacityUnits.Consumed;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CapacityUnitsTest {

    /** "id" (2) + 8 for the integer, "é" is 2 bytes in UTF-8: "name" (4) + 2. */
    private static final PrimaryKey KEY =
            PrimaryKeyBuilder.createPrimaryKeyBuilder()
                    .addPrimaryKeyColumn("id", PrimaryKeyValue.fromLong(7))
                    .addPrimaryKeyColumn("name", PrimaryKeyValue.fromString("é"))
                    .build();

    private static final long KEY_BYTES = 2 + 8 + 4 + 2;

    @Test
    void unitsAreStartedFourKilobyteBlocksAndAtLeastOne() {
        assertThat(CapacityUnits.units(0)).isEqualTo(1);
        assertThat(CapacityUnits.units(1)).isEqualTo(1);
        assertThat(CapacityUnits.units(4096)).isEqualTo(1);
        assertThat(CapacityUnits.units(4097)).isEqualTo(2);
        assertThat(CapacityUnits.units(8192)).isEqualTo(2);
        assertThat(CapacityUnits.units(9 * 1024)).isEqualTo(3);
        assertThatThrownBy(() -> CapacityUnits.units(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
    }

    @Test
    void aKeyCountsItsNamesAndValues() {
        assertThat(CapacityUnits.keyBytes(KEY)).isEqualTo(KEY_BYTES);
    }

    @Test
    void aColumnCountsNameAndValueByTypeAndNotItsTimestamp() {
        assertThat(CapacityUnits.columnBytes(new Column("s", ColumnValue.fromString("日本"))))
                .isEqualTo(1 + 6);
        assertThat(CapacityUnits.columnBytes(new Column("b", ColumnValue.fromBinary(new byte[5]))))
                .isEqualTo(1 + 5);
        assertThat(CapacityUnits.columnBytes(new Column("i", ColumnValue.fromLong(1))))
                .isEqualTo(1 + 8);
        assertThat(CapacityUnits.columnBytes(new Column("d", ColumnValue.fromDouble(0.5))))
                .isEqualTo(1 + 8);
        assertThat(CapacityUnits.columnBytes(new Column("t", ColumnValue.fromBoolean(true))))
                .isEqualTo(1 + 1);
        Column stamped = new Column("i", ColumnValue.fromLong(1), 1_700_000_000_000L);
        assertThat(CapacityUnits.columnBytes(stamped)).isEqualTo(1 + 8);
        assertThat(stamped.getDataSize())
                .as("the SDK's own size counts the timestamp; capacity units do not")
                .isEqualTo(1 + 8 + 8);
    }

    @Test
    void aPutIsChargedOnItsKeyAndColumns() {
        Column small = new Column("c", ColumnValue.fromString("x".repeat(100)));
        assertThat(CapacityUnits.ofWrite(put(WriteCondition.IGNORE, small)))
                .isEqualTo(new Consumed(0, 1));

        // Exactly 4 KB is one unit, one byte more is two.
        Column fits =
                new Column("c", ColumnValue.fromString("x".repeat(4096 - 1 - (int) KEY_BYTES)));
        assertThat(CapacityUnits.ofWrite(put(WriteCondition.IGNORE, fits)).write()).isEqualTo(1);
        Column over = new Column("c", ColumnValue.fromString("x".repeat(4096 - (int) KEY_BYTES)));
        assertThat(CapacityUnits.ofWrite(put(WriteCondition.IGNORE, over)).write()).isEqualTo(2);

        Column nine = new Column("c", ColumnValue.fromString("x".repeat(9 * 1024)));
        assertThat(CapacityUnits.ofWrite(put(WriteCondition.IGNORE, nine)).write()).isEqualTo(3);
    }

    @Test
    void anUpdateCountsPutCellsWholeAndDeletedCellsByName() {
        String longName = "n".repeat(3000);
        RowWrite update =
                new RowWrite(
                        StreamRecord.RecordType.UPDATE,
                        KEY,
                        List.of(
                                new RecordColumn(
                                        new Column("p", ColumnValue.fromString("v".repeat(1000))),
                                        RecordColumn.ColumnType.PUT),
                                new RecordColumn(
                                        new Column(longName, ColumnValue.INTERNAL_NULL_VALUE),
                                        RecordColumn.ColumnType.DELETE_ALL_VERSION),
                                new RecordColumn(
                                        new Column(longName, ColumnValue.INTERNAL_NULL_VALUE, 5),
                                        RecordColumn.ColumnType.DELETE_ONE_VERSION)),
                        WriteCondition.IGNORE,
                        false);
        // 16 + 1001 + 3000 + 3000 bytes: two units.
        assertThat(CapacityUnits.ofWrite(update)).isEqualTo(new Consumed(0, 2));
    }

    @Test
    void aDeleteIsChargedOnItsKeyAlone() {
        RowWrite delete =
                new RowWrite(
                        StreamRecord.RecordType.DELETE,
                        KEY,
                        List.of(),
                        WriteCondition.IGNORE,
                        false);
        assertThat(CapacityUnits.ofWrite(delete)).isEqualTo(new Consumed(0, 1));
    }

    @Test
    void aConditionToCheckAddsTheReadOfTheKey() {
        Column nine = new Column("c", ColumnValue.fromString("x".repeat(9 * 1024)));
        for (RowExistenceExpectation expected :
                List.of(
                        RowExistenceExpectation.EXPECT_EXIST,
                        RowExistenceExpectation.EXPECT_NOT_EXIST)) {
            WriteCondition condition = new WriteCondition(expected, Optional.empty());
            assertThat(CapacityUnits.ofWrite(put(condition, nine)))
                    .as(expected.name())
                    .isEqualTo(new Consumed(1, 3));
        }
        WriteCondition columnsOnly =
                new WriteCondition(RowExistenceExpectation.IGNORE, Optional.of(alwaysTrueFilter()));
        assertThat(CapacityUnits.ofWrite(put(columnsOnly, nine))).isEqualTo(new Consumed(1, 3));
        assertThat(CapacityUnits.Consumed.CONDITION_FAILED).isEqualTo(new Consumed(1, 1));
    }

    @Test
    void aReadIsChargedOnWhatItReadAndAtLeastOne() {
        assertThat(CapacityUnits.ofRead(0)).isEqualTo(new Consumed(1, 0));
        assertThat(CapacityUnits.ofRead(4096)).isEqualTo(new Consumed(1, 0));
        assertThat(CapacityUnits.ofRead(4097)).isEqualTo(new Consumed(2, 0));
        List<Column> columns =
                List.of(
                        new Column("a", ColumnValue.fromString("x".repeat(2000)), 1L),
                        new Column("b", ColumnValue.fromBoolean(false), 2L));
        assertThat(CapacityUnits.rowBytes(KEY, columns)).isEqualTo(KEY_BYTES + 2001 + 2);
    }

    private static RowWrite put(WriteCondition condition, Column... columns) {
        return new RowWrite(
                StreamRecord.RecordType.PUT,
                KEY,
                Arrays.stream(columns)
                        .map(c -> new RecordColumn(c, RecordColumn.ColumnType.PUT))
                        .toList(),
                condition,
                false);
    }

    private static RowFilter alwaysTrueFilter() {
        SingleColumnValueCondition condition =
                new SingleColumnValueCondition(
                        "c",
                        SingleColumnValueCondition.CompareOperator.NOT_EQUAL,
                        ColumnValue.fromLong(0));
        condition.setPassIfMissing(true);
        try {
            return RowFilter.parse(OTSProtocolBuilder.buildFilter(condition));
        } catch (EmulatorError e) {
            throw new AssertionError(e);
        }
    }
}
