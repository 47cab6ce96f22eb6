package io.tablestorecdc.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;

/**
 * Builds a {@link ChannelPartitionReader} per channel group partition, and a {@link
 * TableGroupsReader} per partition of several tables' groups, on the executor.
 */
final class ChannelReaderFactory implements PartitionReaderFactory {

    private static final long serialVersionUID = 1L;

    private final TablestoreSourceOptions options;
    private final OutputSchema schema;

    ChannelReaderFactory(TablestoreSourceOptions options, OutputSchema schema) {
        this.options = options;
        this.schema = schema;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        if (partition instanceof TableGroupsPartition groups) {
            return new TableGroupsReader(options, schema, groups);
        }
        return ChannelPartitionReader.open(options, schema, (ChannelGroupPartition) partition);
    }
}
