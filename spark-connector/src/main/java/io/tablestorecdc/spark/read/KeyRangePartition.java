package io.tablestorecdc.spark.read;

import io.tablestorecdc.checkpoint.table.KeyRange;
import io.tablestorecdc.checkpoint.table.KeyRangeCodec;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One partition of a batch read: a key range of the table, as {@link KeyRangeCodec} bytes (the
 * SDK's keys are not serializable).
 *
 * @param index the partition's place in the scan, for messages
 * @param range the encoded key range
 */
record KeyRangePartition(int index, byte[] range) implements InputPartition {

    static KeyRangePartition of(int index, KeyRange range) {
        return new KeyRangePartition(index, KeyRangeCodec.encode(range));
    }

    KeyRange keyRange() {
        return KeyRangeCodec.decode(range);
    }
}
