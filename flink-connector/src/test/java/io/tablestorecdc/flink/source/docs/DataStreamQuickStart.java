package io.tablestorecdc.flink.source.docs;

import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.config.StartPosition;
import io.tablestorecdc.flink.source.deserializer.RowDataChangeRecordDeserializer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * The DataStream quick start of docs/flink.md, as a method a test runs: this file's imports, a
 * blank line and the lines between the markers are the page's code block, character for character
 * ({@link QuickStartDocITCase}).
 */
final class DataStreamQuickStart {

    static final String START = "// [START datastream quick start]";
    static final String END = "// [END datastream quick start]";

    private DataStreamQuickStart() {}

    static DataStream<RowData> build(
            StreamExecutionEnvironment env,
            String endpoint,
            String instanceName,
            String accessKeyId,
            String accessKeySecret) {
        // [START datastream quick start]
        // env: the job's StreamExecutionEnvironment
        // endpoint: https://<instance>.<region>.ots.aliyuncs.com, or a local emulator's
        RowType rowType =
                (RowType)
                        DataTypes.ROW(
                                        DataTypes.FIELD("id", DataTypes.STRING()),
                                        DataTypes.FIELD("amount", DataTypes.BIGINT()))
                                .getLogicalType();
        TablestoreCdcSource<RowData> source =
                TablestoreCdcSource.<RowData>builder()
                        .setEndpoint(endpoint)
                        .setInstanceName(instanceName)
                        .setCredentials(accessKeyId, accessKeySecret) // or .setStsToken(...)
                        .setTableName("orders")
                        .setTunnelName("orders-to-flink") // one job per tunnel
                        .setTunnelCreation(TunnelCreation.STREAM) // create it if missing
                        .setStartPosition(StartPosition.earliest()) // only when creating it
                        .setMetaTable("tablestore_cdc_meta") // lease + progress (the default)
                        .setDeserializer(
                                new RowDataChangeRecordDeserializer(
                                        rowType, InternalTypeInfo.of(rowType)))
                        .build();

        env.enableCheckpointing(10_000);
        DataStream<RowData> changes =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders changes")
                        .uid("orders-cdc");
        // [END datastream quick start]
        return changes;
    }
}
