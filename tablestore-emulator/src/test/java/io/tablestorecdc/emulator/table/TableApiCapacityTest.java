package io.tablestorecdc.emulator.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.core.protocol.OTSProtocolBuilder;
import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.Condition;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowExistenceExpectation;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Capacity units on the wire where the SDK does not surface them: the service reports what a row of
 * a BatchWriteRow consumed even when the row failed, and the SDK drops it for failed rows.
 */
class TableApiCapacityTest {

    @Test
    void aBatchRowWhoseConditionFailsReportsOneReadAndOneWriteUnit() throws Exception {
        TableStore store = new TableStore();
        TableMeta meta = new TableMeta("t");
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        store.createTable(new TableDescription(meta, -1, 1, Optional.empty(), 0));
        TableApi api = new TableApi(store);

        RowPutChange mustExist = new RowPutChange("t", key("missing"));
        mustExist.addColumn("v", ColumnValue.fromString("x".repeat(9 * 1024)));
        mustExist.setCondition(new Condition(RowExistenceExpectation.EXPECT_EXIST));
        RowPutChange plain = new RowPutChange("t", key("plain"));
        plain.addColumn("v", ColumnValue.fromString("x".repeat(9 * 1024)));
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        batch.addRowChange(mustExist);
        batch.addRowChange(plain);

        OtsInternalApi.BatchWriteRowResponse response =
                OtsInternalApi.BatchWriteRowResponse.parseFrom(
                        api.handle(
                                "BatchWriteRow",
                                OTSProtocolBuilder.buildBatchWriteRowRequest(batch).toByteArray()));

        OtsInternalApi.RowInBatchWriteRowResponse failed = response.getTables(0).getRows(0);
        assertThat(failed.getIsOk()).isFalse();
        assertThat(failed.getError().getCode()).isEqualTo("OTSConditionCheckFail");
        assertThat(failed.getConsumed().getCapacityUnit().getRead()).isEqualTo(1);
        assertThat(failed.getConsumed().getCapacityUnit().getWrite()).isEqualTo(1);
        OtsInternalApi.RowInBatchWriteRowResponse applied = response.getTables(0).getRows(1);
        assertThat(applied.getIsOk()).isTrue();
        assertThat(applied.getConsumed().getCapacityUnit().getRead()).isZero();
        assertThat(applied.getConsumed().getCapacityUnit().getWrite()).isEqualTo(3);
    }

    @Test
    void aBatchRowRefusedForAnotherReasonReportsNoUnits() throws EmulatorError {
        TableStore store = new TableStore();
        TableMeta meta = new TableMeta("t");
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        store.createTable(new TableDescription(meta, -1, 1, Optional.empty(), 0));
        TableApi api = new TableApi(store);

        // An attribute column named like the primary-key column is refused before any read.
        RowPutChange clash = new RowPutChange("t", key("a"));
        clash.addColumn("id", ColumnValue.fromLong(1));
        BatchWriteRowRequest batch = new BatchWriteRowRequest();
        batch.addRowChange(clash);

        OtsInternalApi.RowInBatchWriteRowResponse refused =
                parse(
                                api.handle(
                                        "BatchWriteRow",
                                        OTSProtocolBuilder.buildBatchWriteRowRequest(batch)
                                                .toByteArray()))
                        .getTables(0)
                        .getRows(0);
        assertThat(refused.getIsOk()).isFalse();
        assertThat(refused.getError().getCode()).isEqualTo("OTSParameterInvalid");
        assertThat(refused.hasConsumed()).isFalse();
    }

    private static OtsInternalApi.BatchWriteRowResponse parse(byte[] bytes) {
        try {
            return OtsInternalApi.BatchWriteRowResponse.parseFrom(bytes);
        } catch (Exception e) {
            throw new AssertionError("not a BatchWriteRowResponse", e);
        }
    }

    private static PrimaryKey key(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }
}
