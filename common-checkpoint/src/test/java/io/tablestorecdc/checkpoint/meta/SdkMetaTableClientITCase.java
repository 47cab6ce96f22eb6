package io.tablestorecdc.checkpoint.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.server.Faults;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The SDK client through the real {@code SyncClient} against the emulator: the same contract as the
 * in-memory fake, plus {@link MetaTable} and {@link TunnelMeta} end to end and the retry of writes.
 */
class SdkMetaTableClientITCase extends MetaTableClientContract {

    private static final AtomicInteger TABLES = new AtomicInteger();
    private static TablestoreEmulator emulator;

    @BeforeAll
    static void startEmulator() {
        emulator = TablestoreEmulator.builder().build().start();
    }

    @AfterAll
    static void stopEmulator() {
        emulator.close();
    }

    static TablestoreEndpoint endpoint() {
        return new TablestoreEndpoint(
                emulator.endpoint(),
                emulator.instanceName(),
                TablestoreCredentials.of(emulator.accessKeyId(), emulator.accessKeySecret()));
    }

    static SdkMetaTableClient freshClient() {
        return SdkMetaTableClient.connect(endpoint(), "meta_it_" + TABLES.incrementAndGet());
    }

    static SyncClient rawClient() {
        return emulator.newSyncClient();
    }

    @Override
    protected MetaTableClient newClient() {
        return freshClient();
    }

    @Test
    void aTableWithAnotherPrimaryKeyIsRefused() {
        String name = "not_meta_" + TABLES.incrementAndGet();
        SyncClient raw = rawClient();
        try {
            TableMeta meta = new TableMeta(name);
            meta.addPrimaryKeyColumn("id", PrimaryKeyType.INTEGER);
            raw.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        } finally {
            raw.shutdown();
        }
        try (SdkMetaTableClient other = SdkMetaTableClient.connect(endpoint(), name)) {
            assertThatThrownBy(other::createTableIfMissing)
                    .isInstanceOf(MetaTableException.class)
                    .hasMessageContaining("not a tablestore-cdc meta table")
                    .hasMessageContaining("meta.table");
        }
    }

    /**
     * A first start creates the meta table without a failed request, so neither the SDK nor we log
     * a warning for it (a newcomer reads a WARN on the first run as a failure); a second start
     * finds it, quietly too.
     */
    @Test
    void creatingTheMetaTableOnAFirstStartLogsNoWarning() {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        boolean created;
        boolean again;
        try (SdkMetaTableClient first = freshClient()) {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                created = first.createTableIfMissing();
                again = first.createTableIfMissing();
            } finally {
                System.setErr(stderr);
            }
        }
        assertThat(created).isTrue();
        assertThat(again).isFalse();
        assertThat(captured.toString(StandardCharsets.UTF_8))
                .doesNotContain("WARN")
                .doesNotContain("ERROR");
    }

    @Test
    void aMissingTableIsNamedInTheError() {
        try (SdkMetaTableClient absent = SdkMetaTableClient.connect(endpoint(), "never_created")) {
            assertThatThrownBy(() -> absent.get(new MetaRowKey("t", "b", "c")))
                    .isInstanceOf(MetaTableException.class)
                    .hasMessageContaining("never_created")
                    .hasMessageContaining("OTSObjectNotExist")
                    .hasMessageNotContaining(emulator.accessKeySecret());
        }
    }

    /** The meta table and a tunnel's rows over the SDK client. */
    @Nested
    class MetaTableOverTheSdk {

        private final SdkMetaTableClient table = freshClient();
        private final MetaTable meta = new MetaTable(table);
        private final TunnelMeta tunnel = meta.tunnel("tunnel-1");

        MetaTableOverTheSdk() {
            meta.ensureTable();
        }

        @Test
        void aThousandChannelSnapshotRoundTrips() {
            BatchToken token = BatchToken.random();
            BatchSnapshot snapshot = TestSnapshots.manyChannels(token, 1000);
            tunnel.seed(snapshot, 0);
            tunnel.seed(snapshot, 0);
            assertThat(tunnel.read(token)).isEqualTo(snapshot);
        }

        @Test
        void fillsAreFirstWriterWins() {
            BatchToken token = BatchToken.random();
            tunnel.carryForward(token, 1, Set.of("a"), List.of());
            tunnel.fill(token, TestSnapshots.reading("a", 1));
            tunnel.fill(token, TestSnapshots.reading("a", 1));
            assertThatThrownBy(() -> tunnel.fill(token, TestSnapshots.reading("a", 2)))
                    .isInstanceOf(ConflictingFillException.class);
        }

        @Test
        void theSdksDefaultStrategyWouldNotRetryAWrite() {
            emulator.faults().add(Faults.Rule.error("PutRow", "OTSServerUnavailable", 503, 1));
            SyncClient raw = rawClient();
            try {
                RowPutChange put =
                        new RowPutChange(
                                table.tableName(),
                                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                        .addPrimaryKeyColumn(
                                                "tunnel_id", PrimaryKeyValue.fromString("t"))
                                        .addPrimaryKeyColumn(
                                                "batch", PrimaryKeyValue.fromString("b"))
                                        .addPrimaryKeyColumn(
                                                "channel_id", PrimaryKeyValue.fromString("c"))
                                        .build());
                put.addColumn("x", ColumnValue.fromLong(1));
                assertThatThrownBy(() -> raw.putRow(new PutRowRequest(put)))
                        .isInstanceOfSatisfying(
                                TableStoreException.class,
                                e ->
                                        assertThat(e.getErrorCode())
                                                .isEqualTo("OTSServerUnavailable"));
            } finally {
                raw.shutdown();
                emulator.faults().clear();
            }
        }

        @Test
        void writesAreRetriedWhenTheServerIsUnavailable() {
            BatchToken token = BatchToken.random();
            tunnel.carryForward(token, 1, Set.of("a"), List.of());
            emulator.faults().add(Faults.Rule.error("PutRow", "OTSServerUnavailable", 503, 2));
            emulator.faults()
                    .add(Faults.Rule.error("BatchWriteRow", "OTSServerUnavailable", 503, 2));
            try {
                tunnel.fill(token, TestSnapshots.reading("a", 1));
                tunnel.carryForward(
                        BatchToken.random(),
                        2,
                        Set.of("a"),
                        List.of(TestSnapshots.reading("a", 1)));
            } finally {
                emulator.faults().clear();
            }
            assertThat(tunnel.read(token).channel("a")).contains(TestSnapshots.reading("a", 1));
        }

        /**
         * Meta-table writes whose connection fails (the request lost, or applied with its answer
         * lost, or the answer cut off) are retried, and a retried write that had been applied is
         * told from another consumer's: the batch's state ends as written once.
         */
        @ParameterizedTest
        @EnumSource(
                value = Faults.ConnectionFault.class,
                names = {"CLOSE_BEFORE_DISPATCH", "CLOSE_BEFORE_ANSWER", "RESET_MID_RESPONSE"})
        void writesWhoseConnectionFailsAreRetriedAndLandOnce(Faults.ConnectionFault fault) {
            BatchToken token = BatchToken.random();
            BatchToken next = BatchToken.random();
            emulator.faults().add(Faults.Rule.connection("PutRow", fault, 2));
            emulator.faults().add(Faults.Rule.connection("UpdateRow", fault, 2));
            emulator.faults().add(Faults.Rule.connection("BatchWriteRow", fault, 2));
            try {
                tunnel.carryForward(token, 1, Set.of("a"), List.of());
                tunnel.fill(token, TestSnapshots.reading("a", 1));
                tunnel.carryForward(next, 2, Set.of("a"), List.of(TestSnapshots.reading("a", 1)));
            } finally {
                emulator.faults().clear();
            }
            assertThat(tunnel.read(token).channel("a")).contains(TestSnapshots.reading("a", 1));
            assertThat(tunnel.batchLog())
                    .extracting(LoggedBatch::token)
                    .containsExactly(token, next);
        }

        @Test
        void purgeKeepsTheNewestBatches() {
            List<BatchToken> tokens = new java.util.ArrayList<>();
            for (int seq = 0; seq < 5; seq++) {
                BatchToken token = BatchToken.random();
                tunnel.seed(TestSnapshots.manyChannels(token, 250), seq);
                tokens.add(token);
            }
            assertThat(tunnel.purge(2)).isEqualTo(new PurgeResult(3, 3 * (250 + 2), 0));
            assertThat(tunnel.batchLog())
                    .extracting(LoggedBatch::token)
                    .containsExactlyElementsOf(tokens.subList(3, 5));
            assertThatThrownBy(() -> tunnel.read(tokens.get(0)))
                    .isInstanceOf(SnapshotNotFoundException.class);
        }

        @Test
        void onlyOneOfTwoConsumersOwnsTheTunnel() {
            OwnerLease lease = tunnel.acquireOwnership("query-1", 60_000);
            assertThatThrownBy(() -> tunnel.acquireOwnership("job-2", 60_000))
                    .isInstanceOf(OwnershipConflictException.class)
                    .hasMessageContaining("'query-1'");
            OwnerLease renewed = tunnel.renewOwnership(lease, 60_000);
            assertThat(tunnel.releaseOwnership(renewed)).isTrue();
            assertThat(tunnel.acquireOwnership("job-2", 60_000).consumerId()).isEqualTo("job-2");
            assertThatThrownBy(() -> tunnel.renewOwnership(renewed, 60_000))
                    .isInstanceOf(OwnershipLostException.class);
        }
    }
}
