package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.meta.ConflictingFillException;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Partition readers against the emulator, without Spark's scheduler: a re-run of a batch replays
 * exactly its first run (issue item 4), and of two attempts the first fill wins (item 5).
 */
class ReplayITCase {

    static CdcTestBed bed;
    static final OutputSchema SCHEMA =
            OutputSchema.inferred(List.of(new PrimaryKeyColumn("id", CellValue.Type.STRING)));

    TablestoreSourceOptions options;
    DriverResources shared;
    SourceConnection connection;
    BatchPlanner planner;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    @BeforeEach
    void connect() {
        String table = bed.newTable();
        for (int i = 0; i < 60; i++) {
            bed.put(table, String.format("k%02d", i), i, "n");
        }
        options =
                TablestoreSourceOptions.parse(
                        Map.of(
                                "endpoint",
                                bed.emulator.endpoint(),
                                "instance.name",
                                bed.emulator.instanceName(),
                                "access.key.id",
                                bed.emulator.accessKeyId(),
                                "access.key.secret",
                                CdcTestBed.SECRET,
                                "table.name",
                                table,
                                "tunnel.name",
                                table + "_tunnel",
                                "tunnel.create",
                                "stream",
                                "tunnel.start",
                                "earliest"));
        shared = DriverResources.open(options);
        connection = SourceConnection.open(options, "replay-test-" + table, shared);
        planner = new BatchPlanner(connection, options);
    }

    @AfterEach
    void disconnect() {
        bed.emulator.tunnels().fixReadBatchSize(1000);
        connection.close();
        shared.close();
    }

    /** The partition of the first planned batch, read with {@code cap}. */
    ChannelInputPartition firstBatch(long cap) {
        TablestoreOffset initial = planner.seed();
        TablestoreOffset end = planner.next(initial, ReadLimit.maxRows(23), OptionalLong.empty());
        assertThat(end.read()).containsOnlyKeys("p-0");
        BatchSnapshot start = planner.snapshot(initial.token());
        return new ChannelInputPartition(
                connection.clientId(),
                ChannelStart.of(start.channel("p-0").orElseThrow()),
                end.token().toString(),
                cap);
    }

    static List<String> readAll(ChannelPartitionReader reader) {
        List<String> out = new ArrayList<>();
        try (reader) {
            while (reader.next()) {
                InternalRow row = reader.get();
                // id, _values, _table, _op, _commit_ts, _channel, _seq: the row index in _seq
                out.add(row.getUTF8String(0) + "@" + row.getStruct(6, 3).getInt(2));
            }
        }
        return out;
    }

    @Test
    void aReRunDeliversExactlyTheFirstRunsRecordsWhateverTheServerBatching() {
        bed.emulator.tunnels().varyReadBatchSizes(7, 9);
        ChannelInputPartition partition = firstBatch(23);

        ChannelPartitionReader firstRun = ChannelPartitionReader.open(options, SCHEMA, partition);
        List<String> first = readAll(firstRun);
        bed.put(options.tableName(), "late", 1, "arrived after the first run");
        bed.emulator.tunnels().varyReadBatchSizes(99, 4);
        List<String> replay = readAll(ChannelPartitionReader.open(options, SCHEMA, partition));

        assertThat(first).hasSize(23).startsWith("k00@0").endsWith("k22@22");
        assertThat(replay).containsExactlyElementsOf(first);
        assertThat(metrics(firstRun))
                .containsEntry("recordsRead", 23L)
                .containsEntry("skippedInvalidRecords", 0L)
                .containsKey("tunnelRetries");
        assertThat(metrics(firstRun).get("readRequests"))
                .isGreaterThanOrEqualTo(3L); // <= 9 per read
    }

    static Map<String, Long> metrics(ChannelPartitionReader reader) {
        Map<String, Long> out = new java.util.TreeMap<>();
        for (var m : reader.currentMetricsValues()) {
            out.put(m.name(), m.value());
        }
        return out;
    }

    @Test
    void ofTwoAttemptsTheFirstFillWinsAndTheOtherFails() {
        ChannelInputPartition winner = firstBatch(23);
        ChannelInputPartition shorter =
                new ChannelInputPartition(winner.client(), winner.start(), winner.endToken(), 10);
        ChannelPartitionReader slow = ChannelPartitionReader.open(options, SCHEMA, shorter);
        ChannelPartitionReader fast = ChannelPartitionReader.open(options, SCHEMA, winner);

        List<String> won = readAll(fast);

        assertThatThrownBy(() -> readAll(slow))
                .isInstanceOf(ConflictingFillException.class)
                .hasMessageContaining("first writer wins");
        List<String> retry = readAll(ChannelPartitionReader.open(options, SCHEMA, shorter));
        assertThat(retry).hasSize(23).containsExactlyElementsOf(won);
    }
}
