package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.core.protocol.PlainBufferConsts;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The partition ranges a CreateTable may carry (the SDK's split points, {@code
 * CreateTableRequestEx#setSplitPoints}): checked as the service checks them, in its words (the
 * SDK's functional test {@code SplitPointTest}), then accepted; the emulator keeps one partition
 * per table whatever the request asks for.
 */
final class Partitions {

    private Partitions() {}

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
                    return;
                default:
                    if (buf.getInt() == 0) {
                        throw EmulatorError.parameterInvalid(
                                "The value of partition range can not be empty binary.");
                    }
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
