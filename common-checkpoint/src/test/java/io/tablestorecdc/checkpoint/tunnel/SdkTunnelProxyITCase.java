package io.tablestorecdc.checkpoint.tunnel;

import static io.tablestorecdc.checkpoint.tunnel.TunnelEmulatorFixture.ids;
import static io.tablestorecdc.checkpoint.tunnel.TunnelEmulatorFixture.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.RowUpdateChange;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnChange;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.emulator.tunnel.TunnelService;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link SdkTunnelProxy} through the real SDK {@code TunnelClient} against the emulator. */
class SdkTunnelProxyITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static TunnelEmulatorFixture bed;

    private TunnelMetrics metrics;
    private SdkTunnelProxy proxy;

    @BeforeAll
    static void startEmulator() {
        bed = new TunnelEmulatorFixture();
    }

    @AfterAll
    static void stopEmulator() {
        bed.close();
    }

    @BeforeEach
    void newProxy() {
        metrics = new TunnelMetrics();
        proxy = bed.proxy(metrics);
    }

    @AfterEach
    void closeProxy() {
        bed.emulator.faults().clear();
        bed.emulator.tunnels().fixReadBatchSize(TunnelService.DEFAULT_READ_BATCH_SIZE);
        proxy.close();
    }

    private TunnelClientId connectedClient(String tunnelId) {
        TunnelClientId client = proxy.connect(tunnelId, "it", TIMEOUT);
        proxy.heartbeat(client, List.of());
        return client;
    }

    private String streamTunnel(String table) {
        return proxy.createTunnel(table, "cdc", TunnelType.STREAM, TunnelStart.latest());
    }

    @Test
    void describeOrCreateCreatesAStreamTunnelOnceAndThenDescribesIt() {
        String table = bed.newTable();

        // Quietly: no failed request (which the SDK would log as a warning) on the way.
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        TunnelDescription created;
        TunnelDescription again;
        try {
            created =
                    proxy.describeOrCreateTunnel(
                            table, "cdc", TunnelType.STREAM, TunnelStart.latest());
            again =
                    proxy.describeOrCreateTunnel(
                            table, "cdc", TunnelType.STREAM, TunnelStart.latest());
        } finally {
            System.setErr(stderr);
        }

        assertThat(captured.toString(StandardCharsets.UTF_8))
                .doesNotContain("WARN")
                .doesNotContain("ERROR");
        assertThat(created.tunnelId()).isNotEmpty().isEqualTo(again.tunnelId());
        assertThat(created.type()).isEqualTo(TunnelType.STREAM);
        assertThat(created.tableName()).isEqualTo(table);
        assertThat(created.tunnelName()).isEqualTo("cdc");
        assertThat(created.expired()).isFalse();
        assertThat(created.stage()).contains(TunnelDescription.Stage.PROCESS_STREAM);
        assertThat(created.channels())
                .extracting(ServerChannel::channelId, ServerChannel::type)
                .containsExactly(tuple("p-0", ChannelType.STREAM));
    }

    @Test
    void describeListsOneChannelPerPartitionWithTypeStatusAndHolder() {
        String table = bed.newTable();
        assertThat(bed.emulator.tunnels().split(table, key("m"))).containsExactly("p-1", "p-2");
        String tunnelId = streamTunnel(table);

        assertThat(proxy.describeTunnel(table, "cdc").channels())
                .extracting(ServerChannel::channelId, ServerChannel::type, ServerChannel::status)
                .containsExactlyInAnyOrder(
                        tuple("p-1", ChannelType.STREAM, ServerChannelStatus.WAIT),
                        tuple("p-2", ChannelType.STREAM, ServerChannelStatus.WAIT));

        TunnelClientId client = connectedClient(tunnelId);

        assertThat(proxy.describeTunnel(table, "cdc").channels())
                .allSatisfy(
                        c -> {
                            assertThat(c.status()).isEqualTo(ServerChannelStatus.OPEN);
                            assertThat(c.clientId()).contains(client.clientId());
                        })
                .hasSize(2);
    }

    @Test
    void aMissingTunnelOrTableIsNotFound() {
        String table = bed.newTable();

        assertThatThrownBy(() -> proxy.describeTunnel(table, "nope"))
                .isInstanceOfSatisfying(
                        TunnelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND))
                .hasMessageContaining("tunnel 'nope' of table '" + table + "'")
                .hasMessageContaining(SdkErrorClassifier.advice(Kind.NOT_FOUND));
        assertThatThrownBy(() -> proxy.describeTunnel("no_such_table", "cdc"))
                .isInstanceOfSatisfying(
                        TunnelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND));
    }

    @Test
    void listingATablesTunnelsGivesEachOnesIdTypeAndStage() {
        String table = bed.newTable();
        String streamId = streamTunnel(table);
        String bothId =
                proxy.createTunnel(table, "all", TunnelType.BASE_AND_STREAM, TunnelStart.latest());

        assertThat(proxy.listTunnels(table))
                .extracting(
                        TunnelDescription::tunnelName,
                        TunnelDescription::tunnelId,
                        TunnelDescription::type,
                        TunnelDescription::tableName)
                .containsExactly(
                        tuple("all", bothId, TunnelType.BASE_AND_STREAM, table),
                        tuple("cdc", streamId, TunnelType.STREAM, table));
        assertThat(proxy.listTunnels(table)).allMatch(t -> t.channels().isEmpty());
        assertThat(proxy.listTunnels(bed.newTable())).isEmpty();
    }

    @Test
    void aConnectedClientGetsItsChannelOpenAndTheInitialCheckpoint() {
        String table = bed.newTable();
        String tunnelId = streamTunnel(table);

        TunnelClientId client = proxy.connect(tunnelId, "it", TIMEOUT);
        List<AssignedChannel> assigned = proxy.heartbeat(client, List.of());
        ServerCheckpoint checkpoint = proxy.getCheckpoint(client, "p-0");

        assertThat(client.tunnelId()).isEqualTo(tunnelId);
        assertThat(assigned)
                .extracting(AssignedChannel::channelId, AssignedChannel::status)
                .containsExactly(tuple("p-0", ServerChannelStatus.OPEN));
        assertThat(assigned.get(0).version()).isPositive();
        assertThat(checkpoint.sequenceNumber()).isZero();
        assertThat(checkpoint.position().isFinished()).isFalse();
        assertThat(checkpoint.position().token()).isNotEmpty();
    }

    @Test
    void putUpdateAndDeleteAreReadAsChangeRecords() {
        String table = bed.newTable();
        TunnelClientId client = connectedClient(streamTunnel(table));
        String start = proxy.getCheckpoint(client, "p-0").position().token();
        long beforeMicros = System.currentTimeMillis() * 1000;

        RowPutChange put = new RowPutChange(table, key("a"));
        put.addColumn(new Column("s", ColumnValue.fromString("x")));
        put.addColumn(new Column("n", ColumnValue.fromLong(1), 1_000L));
        put.addColumn(new Column("old", ColumnValue.fromBoolean(true)));
        AppliedOnceWrites.put(bed.sync, put);
        RowUpdateChange update = new RowUpdateChange(table, key("a"));
        update.put(new Column("s", ColumnValue.fromString("y")));
        update.deleteColumn("n", 1_000L);
        update.deleteColumns("old");
        AppliedOnceWrites.update(bed.sync, update);
        AppliedOnceWrites.delete(bed.sync, new RowDeleteChange(table, key("a")));
        long afterMicros = System.currentTimeMillis() * 1000 + 1000;

        ReadResult result = proxy.readRecords(client, "p-0", start);

        List<ChangeRecord> records = result.records();
        assertThat(records)
                .extracting(ChangeRecord::action)
                .containsExactly(Action.PUT, Action.UPDATE, Action.DELETE);
        assertThat(ids(records)).containsExactly("a", "a", "a");
        assertThat(records).extracting(ChangeRecord::channelId).containsOnly("p-0");
        assertThat(records.get(0).columns())
                .extracting(ColumnChange::name, ColumnChange::operation, ColumnChange::value)
                .containsExactlyInAnyOrder(
                        tuple("s", ColumnOperation.PUT, CellValue.ofString("x")),
                        tuple("n", ColumnOperation.PUT, CellValue.ofInteger(1)),
                        tuple("old", ColumnOperation.PUT, CellValue.ofBoolean(true)));
        assertThat(records.get(0).columns())
                .filteredOn(c -> c.name().equals("n"))
                .extracting(ColumnChange::timestampMillis)
                .containsExactly(1_000L);
        assertThat(records.get(1).columns())
                .extracting(
                        ColumnChange::name,
                        ColumnChange::operation,
                        ColumnChange::value,
                        ColumnChange::timestampMillis)
                .containsExactlyInAnyOrder(
                        tuple(
                                "s",
                                ColumnOperation.PUT,
                                CellValue.ofString("y"),
                                tsOf(records, "s")),
                        tuple("n", ColumnOperation.DELETE_ONE_VERSION, null, 1_000L),
                        tuple("old", ColumnOperation.DELETE_ALL_VERSION, null, 0L));
        assertThat(records.get(2).columns()).isEmpty();
        assertThat(records)
                .extracting(ChangeRecord::sequence)
                .allSatisfy(
                        s -> assertThat(s.timestampMicros()).isBetween(beforeMicros, afterMicros))
                .isSorted();
        assertThat(records.get(0).sequence().rowIndex())
                .isLessThan(records.get(2).sequence().rowIndex());
        assertThat(result.isFinished()).isFalse();
        assertThat(result.mayMoreRecord()).isFalse();
        assertThat(proxy.readRecords(client, "p-0", result.next().token()).records()).isEmpty();
    }

    // The update's PUT cell carries the server's commit time as its timestamp.
    private static long tsOf(List<ChangeRecord> records, String column) {
        return records.get(1).columns().stream()
                .filter(c -> c.name().equals(column))
                .findFirst()
                .orElseThrow()
                .timestampMillis();
    }

    @Test
    void aSmallerServerBatchSaysMayMoreRecordAndTheNextTokenContinues() {
        String table = bed.newTable();
        TunnelClientId client = connectedClient(streamTunnel(table));
        String start = proxy.getCheckpoint(client, "p-0").position().token();
        for (String id : List.of("a", "b", "c")) {
            bed.put(table, id, 1);
        }
        bed.emulator.tunnels().fixReadBatchSize(2);

        ReadResult first = proxy.readRecords(client, "p-0", start);
        ReadResult second = proxy.readRecords(client, "p-0", first.next().token());

        assertThat(ids(first.records())).containsExactly("a", "b");
        assertThat(first.mayMoreRecord()).isTrue();
        assertThat(ids(second.records())).containsExactly("c");
        assertThat(second.mayMoreRecord()).isFalse();
    }

    @Test
    void aBaseDataChannelReadsItsSnapshotToAFinishedResult() {
        String table = bed.newTable();
        for (String id : List.of("a", "b", "c")) {
            bed.put(table, id, 7);
        }
        String tunnelId =
                proxy.createTunnel(table, "base", TunnelType.BASE_DATA, TunnelStart.latest());
        TunnelClientId client = connectedClient(tunnelId);
        assertThat(proxy.describeTunnel(table, "base").channels())
                .extracting(ServerChannel::channelId, ServerChannel::type)
                .containsExactly(tuple("BaseData_p-0", ChannelType.BASE_DATA));
        bed.emulator.tunnels().fixReadBatchSize(2);
        String token = proxy.getCheckpoint(client, "BaseData_p-0").position().token();

        ReadResult first = proxy.readRecords(client, "BaseData_p-0", token);
        ReadResult last = proxy.readRecords(client, "BaseData_p-0", first.next().token());

        assertThat(first.isFinished()).isFalse();
        assertThat(last.isFinished()).isTrue();
        assertThat(last.next()).isEqualTo(ChannelPosition.finished());
        List<ChangeRecord> all = new java.util.ArrayList<>(first.records());
        all.addAll(last.records());
        assertThat(ids(all)).containsExactly("a", "b", "c");
        assertThat(all).extracting(ChangeRecord::action).containsOnly(Action.PUT);
        assertThat(all).extracting(ChangeRecord::sequence).containsOnly(SequenceInfo.NONE);
        assertThatThrownBy(
                        () ->
                                proxy.readRecords(
                                        client, "BaseData_p-0", ChannelPosition.FINISHED_TOKEN))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aStaleCheckpointSequenceNumberResyncsWithTheServer() {
        String table = bed.newTable();
        TunnelClientId client = connectedClient(streamTunnel(table));
        bed.put(table, "a", 1);
        ReadResult first =
                proxy.readRecords(
                        client, "p-0", proxy.getCheckpoint(client, "p-0").position().token());
        assertThat(proxy.checkpoint(client, "p-0", first.next(), 1)).isEqualTo(1);
        bed.put(table, "b", 2);
        ReadResult second = proxy.readRecords(client, "p-0", first.next().token());

        long accepted = proxy.checkpoint(client, "p-0", second.next(), 1);
        long repeated = proxy.checkpoint(client, "p-0", second.next(), 1);

        assertThat(accepted).isEqualTo(2);
        assertThat(repeated).isEqualTo(2);
        assertThat(metrics.checkpointResyncs()).isEqualTo(2);
        ServerCheckpoint server = proxy.getCheckpoint(client, "p-0");
        assertThat(server.position().token()).isEqualTo(second.next().token());
        assertThat(server.sequenceNumber()).isEqualTo(2);
    }

    @Test
    void aFinishedServerCheckpointIsNeverMovedBack() {
        String table = bed.newTable();
        TunnelClientId client = connectedClient(streamTunnel(table));
        ChannelPosition start = proxy.getCheckpoint(client, "p-0").position();
        proxy.checkpoint(client, "p-0", ChannelPosition.finished(), 1);

        assertThatThrownBy(() -> proxy.checkpoint(client, "p-0", start, 1))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.CHECKPOINT_CONFLICT));
        assertThat(proxy.getCheckpoint(client, "p-0").position().isFinished()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"OTSServerBusy", "OTSTunnelServerUnavailable"})
    void transientErrorsBelowTheLimitAreRetriedAndCounted(String code) {
        String table = bed.newTable();
        TunnelClientId client = connectedClient(streamTunnel(table));
        String start = proxy.getCheckpoint(client, "p-0").position().token();
        bed.put(table, "a", 1);
        int failures = FAST_RETRIES_MAX - 1;
        bed.emulator.faults().add(Faults.Rule.error("tunnel/readrecords", code, 503, failures));

        ReadResult result = proxy.readRecords(client, "p-0", start);

        assertThat(ids(result.records())).containsExactly("a");
        assertThat(metrics.retries()).isEqualTo(failures);
        assertThat(metrics.failedCalls()).isZero();
    }

    private static final int FAST_RETRIES_MAX = TunnelEmulatorFixture.FAST_RETRIES.maxAttempts();

    /**
     * A read whose connection fails in any of the ways a network fails (before the request ran,
     * after it ran with the answer lost, halfway through the answer) is retried and returns the
     * same records: reading a token is side-effect free.
     */
    @ParameterizedTest
    @EnumSource(
            value = Faults.ConnectionFault.class,
            names = {"CLOSE_BEFORE_DISPATCH", "CLOSE_BEFORE_ANSWER", "RESET_MID_RESPONSE"})
    void aReadWhoseConnectionFailsIsRetriedAndReturnsTheSameRecords(Faults.ConnectionFault fault) {
        String table = bed.newTable();
        TunnelClientId client = connectedClient(streamTunnel(table));
        String start = proxy.getCheckpoint(client, "p-0").position().token();
        bed.put(table, "a", 1);
        bed.put(table, "b", 2);
        bed.emulator.faults().add(Faults.Rule.connection("tunnel/readrecords", fault, 2));

        ReadResult result = proxy.readRecords(client, "p-0", start);

        assertThat(ids(result.records())).containsExactly("a", "b");
        assertThat(metrics.retries()).isEqualTo(2);
        assertThat(metrics.failedCalls()).isZero();
    }

    /**
     * A checkpoint whose connection fails is retried; when the server had applied it (the answer
     * was lost), the retry's stale sequence number resyncs to the server's, which already holds
     * this position: the checkpoint is neither lost nor applied twice.
     */
    @ParameterizedTest
    @EnumSource(
            value = Faults.ConnectionFault.class,
            names = {"CLOSE_BEFORE_DISPATCH", "CLOSE_BEFORE_ANSWER", "RESET_MID_RESPONSE"})
    void aCheckpointWhoseConnectionFailsLandsExactlyOnce(Faults.ConnectionFault fault) {
        String table = bed.newTable();
        TunnelClientId client = connectedClient(streamTunnel(table));
        bed.put(table, "a", 1);
        ReadResult read =
                proxy.readRecords(
                        client, "p-0", proxy.getCheckpoint(client, "p-0").position().token());
        bed.emulator.faults().add(Faults.Rule.connection("tunnel/checkpoint", fault, 1));

        long sequence = proxy.checkpoint(client, "p-0", read.next(), 1);

        assertThat(sequence).isEqualTo(1);
        ServerCheckpoint server = proxy.getCheckpoint(client, "p-0");
        assertThat(server.position().token()).isEqualTo(read.next().token());
        assertThat(server.sequenceNumber()).isEqualTo(1);
        assertThat(proxy.checkpoint(client, "p-0", read.next(), 2))
                .as("the next checkpoint takes the next number")
                .isEqualTo(2);
    }

    @Test
    void transientErrorsBeyondTheLimitExhaustTheRetries() {
        String table = bed.newTable();
        TunnelClientId client = connectedClient(streamTunnel(table));
        bed.emulator
                .faults()
                .add(Faults.Rule.error("tunnel/heartbeat", "OTSServerBusy", 503, FAST_RETRIES_MAX));

        TunnelException e =
                catchThrowableOfType(
                        () -> proxy.heartbeat(client, List.of()), TunnelException.class);

        assertThat(e.kind()).isEqualTo(Kind.RETRIES_EXHAUSTED);
        assertThat(e.errorCode()).contains("OTSServerBusy");
        assertThat(e)
                .hasMessageContaining("after " + FAST_RETRIES_MAX + " attempts")
                .hasMessageContaining(SdkErrorClassifier.advice(Kind.RETRIES_EXHAUSTED));
        assertThat(metrics.retries()).isEqualTo(FAST_RETRIES_MAX - 1);
        assertThat(metrics.failedCalls()).isEqualTo(1);
        assertThat(proxy.heartbeat(client, List.of())).as("the next call passes").hasSize(1);
    }

    @Test
    void anExpiredTunnelFailsWithExpiredAndItsAdvice() {
        String table = bed.newTable();
        String tunnelId = streamTunnel(table);
        TunnelClientId client = connectedClient(tunnelId);

        bed.emulator.tunnels().expireTunnel(tunnelId);

        TunnelException e =
                catchThrowableOfType(
                        () -> proxy.heartbeat(client, List.of()), TunnelException.class);
        assertThat(e.kind()).isEqualTo(Kind.EXPIRED);
        assertThat(e.stopsClient()).isTrue();
        assertThat(e.errorCode()).contains("OTSTunnelExpired");
        assertThat(e).hasMessageContaining(SdkErrorClassifier.advice(Kind.EXPIRED));
        assertThat(metrics.retries()).isZero();
        assertThat(proxy.describeTunnel(table, "cdc").expired()).isTrue();
    }

    @Test
    void aWrongSecretIsAccessDeniedWithoutTheSecretAnywhere() {
        String table = bed.newTable();
        streamTunnel(table);
        String secret = "wrong-secret-5f3a9c";
        SdkTunnelProxy wrong =
                SdkTunnelProxy.create(
                        bed.endpoint(secret),
                        TunnelEmulatorFixture.FAST_RETRIES,
                        new TunnelMetrics());
        try {
            TunnelException e =
                    catchThrowableOfType(
                            () -> wrong.describeTunnel(table, "cdc"), TunnelException.class);

            assertThat(e.kind()).isEqualTo(Kind.ACCESS_DENIED);
            assertThat(e).hasMessageContaining(SdkErrorClassifier.advice(Kind.ACCESS_DENIED));
            for (Throwable t = e; t != null; t = t.getCause()) {
                assertThat(String.valueOf(t.getMessage())).doesNotContain(secret);
                assertThat(t.toString()).doesNotContain(secret);
            }
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            assertThat(trace.toString()).doesNotContain(secret);
            assertThat(wrong.toString()).doesNotContain(secret);
        } finally {
            wrong.close();
        }
    }

    @Test
    void shutdownReleasesTheClientsChannels() {
        String table = bed.newTable();
        TunnelClientId client = connectedClient(streamTunnel(table));

        proxy.shutdown(client);

        Optional<ServerChannel> channel = proxy.describeTunnel(table, "cdc").channel("p-0");
        assertThat(channel).isPresent();
        assertThat(channel.get().clientId()).isEmpty();
        assertThat(channel.get().status()).isNotEqualTo(ServerChannelStatus.OPEN);
    }
}
