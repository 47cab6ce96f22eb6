package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConsts;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The partition ranges a CreateTable may carry (the SDK's split points, {@code
 * CreateTableRequestEx#setSplitPoints}): checked as the service checks them, in its words (the
 * SDK's functional test {@code SplitPointTest}), then kept as the table's shard splits, which
 * DescribeTable reports. The emulator still serves each table as one partition (one tunnel
 * channel), whatever the request asks for.
 */
final class Partitions {

    /** The longest STRING or BINARY split point, in bytes. */
    private static final int MAX_POINT_BYTES = 64;

    private Partitions() {}

    /**
     * The table's shard splits from a checked request's partition ranges: each range's begin but
     * the first's (which is INF_MIN), as a primary key of that value in the partition key and
     * INF_MIN in the other columns.
     */
    static List<PrimaryKey> splits(OtsInternalApi.CreateTableRequest request) {
        List<PrimaryKey> splits = new ArrayList<>();
        List<OtsInternalApi.PrimaryKeySchema> schema = request.getTableMeta().getPrimaryKeyList();
        for (int i = 1; i < request.getPartitionsCount(); i++) {
            List<PrimaryKeyColumn> columns = new ArrayList<>(schema.size());
            columns.add(
                    new PrimaryKeyColumn(
                            schema.get(0).getName(),
                            value(request.getPartitions(i).getBegin(), schema.get(0).getType())));
            for (int c = 1; c < schema.size(); c++) {
                columns.add(new PrimaryKeyColumn(schema.get(c).getName(), PrimaryKeyValue.INF_MIN));
            }
            splits.add(new PrimaryKey(columns));
        }
        return splits;
    }

    /** A checked bound's value. */
    private static PrimaryKeyValue value(ByteString bytes, OtsInternalApi.PrimaryKeyType type) {
        ByteBuffer buf = bytes.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        byte valueType = buf.get();
        if (valueType == PlainBufferConsts.VT_INF_MIN) {
            return PrimaryKeyValue.INF_MIN;
        }
        if (valueType == PlainBufferConsts.VT_INF_MAX) {
            return PrimaryKeyValue.INF_MAX;
        }
        if (type == OtsInternalApi.PrimaryKeyType.INTEGER) {
            return PrimaryKeyValue.fromLong(buf.getLong());
        }
        byte[] value = new byte[buf.getInt()];
        buf.get(value);
        return type == OtsInternalApi.PrimaryKeyType.STRING
                ? PrimaryKeyValue.fromString(new String(value, StandardCharsets.UTF_8))
                : PrimaryKeyValue.fromBinary(value);
    }

    static void check(OtsInternalApi.CreateTableRequest request) throws EmulatorError {
        int count = request.getPartitionsCount();
        if (count == 0) {
            return;
        }
        if (count > Limits.MAX_PARTITIONS) {
            throw EmulatorError.parameterInvalid(
                    "The count of partitions cannot be greater than " + Limits.MAX_PARTITIONS);
        }
        if (request.getTableMeta().getPrimaryKeyCount() == 0) {
            return; // refused for its schema
        }
        OtsInternalApi.PrimaryKeyType first = request.getTableMeta().getPrimaryKey(0).getType();
        for (OtsInternalApi.PartitionRange range : request.getPartitionsList()) {
            point(range.getBegin(), first);
            point(range.getEnd(), first);
        }
    }

    /** One bound of a partition range: a type byte and its value (INF_MIN / INF_MAX alone). */
    private static void point(ByteString bytes, OtsInternalApi.PrimaryKeyType type)
            throws EmulatorError {
        ByteBuffer buf = bytes.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        try {
            byte valueType = buf.get();
            if (valueType == PlainBufferConsts.VT_INF_MIN
                    || valueType == PlainBufferConsts.VT_INF_MAX) {
                return;
            }
            if (valueType != expected(type)) {
                throw EmulatorError.parameterInvalid(
                        "The value type of partition does not match with primary key.");
            }
            switch (type) {
                case INTEGER:
                    {
                        long value = buf.getLong();
                        if (value == Long.MIN_VALUE || value == Long.MAX_VALUE) {
                            throw EmulatorError.parameterInvalid(
                                    "The value of partition range can not be INT64_MIN or"
                                            + " INT64_MAX.");
                        }
                        return;
                    }
                case STRING:
                    if (buf.getInt() == 0) {
                        throw EmulatorError.parameterInvalid(
                                "The value of partition range can not be empty string.");
                    }
                    break;
                default:
                    if (buf.getInt() == 0) {
                        throw EmulatorError.parameterInvalid(
                                "The value of partition range can not be empty binary.");
                    }
            }
            int length = buf.getInt(1);
            if (length > MAX_POINT_BYTES) {
                throw EmulatorError.parameterInvalid(
                        "The value of partition range exceeds the MaxLength:"
                                + MAX_POINT_BYTES
                                + " with CurrentLength:"
                                + length
                                + ".");
            }
        } catch (BufferUnderflowException e) {
            throw EmulatorError.parameterInvalid(
                    "A partition range of the CreateTable request is truncated");
        }
    }

    private static byte expected(OtsInternalApi.PrimaryKeyType type) {
        switch (type) {
            case INTEGER:
                return PlainBufferConsts.VT_INTEGER;
            case STRING:
                return PlainBufferConsts.VT_STRING;
            default:
                return PlainBufferConsts.VT_BLOB;
        }
    }
}
