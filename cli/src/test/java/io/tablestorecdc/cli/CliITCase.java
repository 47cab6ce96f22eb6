package io.tablestorecdc.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper;
import io.tablestorecdc.checkpoint.meta.ConsumerProgress;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelLifecycle;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import io.tablestorecdc.emulator.AppliedOnceWrites;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command against the emulator, through the real SDK: the meta rows are written by the core's
 * own {@link MetaTable} and {@link OwnerLeaseKeeper}, as a running query or job writes them.
 */
class CliITCase {

    private static final AtomicInteger TABLES = new AtomicInteger();

    /** "Now" for the commands whose output is compared with a golden file. */
    private static final Instant READ_AT = Instant.parse("2030-01-01T00:01:05Z");

    private static TablestoreEmulator emulator;
    private static SyncClient sync;

    @TempDir static Path dir;

    private static Path credentials;

    private String table;

    @BeforeAll
    static void startEmulator() throws IOException {
        emulator = TablestoreEmulator.builder().build().start();
        sync = emulator.newSyncClient();
        credentials =
                Files.writeString(
                        dir.resolve("tablestore.properties"),
                        "access.key.id="
                                + emulator.accessKeyId()
                                + "\naccess.key.secret="
                                + emulator.accessKeySecret()
                                + "\n");
    }

    @AfterAll
    static void stopEmulator() {
        sync.shutdown();
        emulator.close();
    }

    @BeforeEach
    void newTable() {
        table = "cli_it_" + TABLES.incrementAndGet();
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn(new PrimaryKeySchema("id", PrimaryKeyType.STRING));
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }

    // ---- tunnels ----

    @Test
    void tunnelsListsEachTunnelWithTheConsumerThatHoldsIt() {
        String held = createTunnel("held", TunnelType.STREAM);
        createTunnel("free", TunnelType.BASE_AND_STREAM);
        MetaTable meta = metaTable(Clock.systemUTC());
        OwnerLeaseKeeper.acquire(meta.tunnel(held), "/checkpoints/orders");

        CliRun text = cli(Clock.systemUTC(), "tunnels", "--table", table);
        CliRun json = cli(Clock.systemUTC(), "tunnels", "--table", table, "--json");

        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.out().lines().toList()).hasSize(3).first().asString().startsWith("NAME");
        assertThat(text.out()).contains("free", "BASE_AND_STREAM");
        assertThat(line(text.out(), "held"))
                .contains(held, "STREAM", "/checkpoints/orders", "spark", "live");
        JsonObject doc = parse(json);
        assertThat(doc.get("schema").getAsString()).isEqualTo("tablestore-cdc.tunnels");
        assertThat(doc.get("version").getAsInt()).isEqualTo(1);
        JsonObject first = doc.getAsJsonArray("tunnels").get(0).getAsJsonObject();
        assertThat(first.keySet())
                .containsExactlyInAnyOrder("name", "id", "type", "stage", "expired", "owner");
        assertThat(first.get("name").getAsString()).isEqualTo("free");
        assertThat(first.get("owner").isJsonNull()).isTrue();
        JsonObject owner =
                doc.getAsJsonArray("tunnels").get(1).getAsJsonObject().getAsJsonObject("owner");
        assertThat(owner.keySet())
                .containsExactlyInAnyOrder(
                        "consumer", "engine", "epoch", "expires_at", "last_renewal", "state");
        assertThat(owner.get("consumer").getAsString()).isEqualTo("/checkpoints/orders");
        assertThat(owner.get("engine").getAsString()).isEqualTo("spark");
    }

    // ---- describe ----

    @Test
    void describePrintsTheTunnelAndOneRowPerChannelAsTheGoldenFileShows() throws IOException {
        String tunnelId = describedTunnel();

        CliRun run =
                cli(
                        Clock.fixed(READ_AT, ZoneOffset.UTC),
                        "describe",
                        "--table",
                        table,
                        "--tunnel",
                        "cdc");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(masked(run.out(), tunnelId)).isEqualTo(golden("describe.txt"));
    }

    @Test
    void aProgramHoldingAnEndpointPrintsTheSameDescribe() {
        String tunnelId = describedTunnel();
        java.io.StringWriter out = new java.io.StringWriter();

        TablestoreCdcCli.describe(
                endpoint(),
                SdkMetaTableClient.DEFAULT_TABLE_NAME,
                table,
                "cdc",
                new java.io.PrintWriter(out, true));

        assertThat(out.toString())
                .startsWith("Tunnel 'cdc' of table '" + table + "'")
                .contains(tunnelId, "consumer '/checkpoints/orders'", "p-1", "p-2", "max lag: ");
    }

    @Test
    void describeJsonHoldsTheDocumentedFields() {
        String tunnelId = describedTunnel();

        JsonObject doc = describeJson();
        assertThat(doc.keySet())
                .containsExactly(
                        "schema",
                        "version",
                        "table",
                        "meta_table",
                        "read_at",
                        "tunnel",
                        "owner",
                        "snapshots",
                        "channels",
                        "max_lag_ms");
        assertThat(doc.get("schema").getAsString()).isEqualTo("tablestore-cdc.describe");
        assertThat(doc.getAsJsonObject("tunnel").get("id").getAsString()).isEqualTo(tunnelId);
        assertThat(doc.getAsJsonObject("owner").get("state").getAsString()).isEqualTo("live");
        JsonObject snapshots = doc.getAsJsonObject("snapshots");
        assertThat(snapshots.get("count").getAsInt()).isEqualTo(2);
        assertThat(snapshots.getAsJsonObject("newest").get("batch").getAsLong()).isEqualTo(8);
        assertThat(snapshots.get("newest_complete_token").getAsString()).isEqualTo(T8.toString());
        JsonObject channel = doc.getAsJsonArray("channels").get(0).getAsJsonObject();
        assertThat(channel.keySet())
                .containsExactly(
                        "id",
                        "type",
                        "status",
                        "client_id",
                        "server_checkpoint_time",
                        "engine",
                        "caught_up",
                        "lag_ms");
        assertThat(channel.getAsJsonObject("engine").keySet())
                .containsExactly("state", "token", "skip", "batch_records", "last_record_time");
        assertThat(channel.getAsJsonObject("engine").get("token").getAsString())
                .isEqualTo("token-p-1-0042");
        assertThat(channel.get("lag_ms").getAsLong()).isEqualTo(65_000);
        assertThat(doc.get("max_lag_ms").getAsLong()).isEqualTo(95_000);
    }

    @Test
    void aChannelTheLiveConsumerReportsCaughtUpAtItsCommittedPositionHasNoLag() {
        String tunnelId = describedTunnel();
        MetaTable meta = metaTable(Clock.systemUTC());
        String holder = meta.tunnel(tunnelId).owner().orElseThrow().holder();
        long fresh = Instant.parse("2030-01-01T00:00:50Z").toEpochMilli();
        Map<String, ChannelPosition> drained =
                Map.of(
                        "p-1", ChannelPosition.at("token-p-1-0042", 0),
                        // p-2 committed token-p-2-0042+3: found drained before its last record
                        "p-2", ChannelPosition.at("token-p-2-0042", 2));

        meta.tunnel(tunnelId).reportProgress(new ConsumerProgress(holder, fresh, drained));
        JsonObject live = describeJson();
        meta.tunnel(tunnelId)
                .reportProgress(new ConsumerProgress("an-earlier-run", fresh, drained));
        JsonObject earlierRun = describeJson();
        long stale = Instant.parse("2030-01-01T00:00:25Z").toEpochMilli();
        meta.tunnel(tunnelId).reportProgress(new ConsumerProgress(holder, stale, drained));
        JsonObject staleReport = describeJson();

        assertThat(channel(live, 0).get("caught_up").getAsBoolean()).isTrue();
        assertThat(channel(live, 0).get("lag_ms").getAsLong()).isZero();
        assertThat(channel(live, 1).get("caught_up").getAsBoolean()).isFalse();
        assertThat(channel(live, 1).get("lag_ms").getAsLong()).isEqualTo(95_000);
        for (JsonObject ignored : List.of(earlierRun, staleReport)) {
            assertThat(channel(ignored, 0).get("caught_up").getAsBoolean()).isFalse();
            assertThat(channel(ignored, 0).get("lag_ms").getAsLong()).isEqualTo(65_000);
        }
    }

    private JsonObject describeJson() {
        return parse(
                cli(
                        Clock.fixed(READ_AT, ZoneOffset.UTC),
                        "describe",
                        "--table",
                        table,
                        "--tunnel",
                        "cdc",
                        "--json"));
    }

    private static JsonObject channel(JsonObject describe, int index) {
        return describe.getAsJsonArray("channels").get(index).getAsJsonObject();
    }

    // ---- lag ----

    @Test
    void lagExitsOneOnlyWhenTheMaximumExceedsTheThreshold() {
        describedTunnel();
        Clock at = Clock.fixed(READ_AT, ZoneOffset.UTC);

        CliRun within = cli(at, "lag", "--table", table, "--tunnel", "cdc", "--max-lag", "95s");
        CliRun above = cli(at, "lag", "--table", table, "--tunnel", "cdc", "--max-lag", "94s");
        CliRun json =
                cli(at, "lag", "--table", table, "--tunnel", "cdc", "--max-lag", "1m", "--json");

        assertThat(within.exitCode()).as(within.toString()).isZero();
        assertThat(within.out()).contains("max lag: 1m35s");
        assertThat(line(within.out(), "p-1")).contains("OPEN", "1m5s");
        assertThat(above.exitCode()).isEqualTo(TablestoreCdcCli.CHECK_FAILED);
        assertThat(above.err()).contains("lags 1m35s, more than --max-lag 1m34s");
        assertThat(json.exitCode()).isEqualTo(TablestoreCdcCli.CHECK_FAILED);
        JsonObject doc = parse(json);
        assertThat(doc.get("schema").getAsString()).isEqualTo("tablestore-cdc.lag");
        assertThat(doc.get("max_lag_ms").getAsLong()).isEqualTo(95_000);
        assertThat(doc.get("threshold_ms").getAsLong()).isEqualTo(60_000);
        assertThat(doc.get("exceeded").getAsBoolean()).isTrue();
    }

    @Test
    void lagPrintsThePrometheusTextFormat() {
        describedTunnel();

        CliRun run =
                cli(
                        Clock.fixed(READ_AT, ZoneOffset.UTC),
                        "lag",
                        "--table",
                        table,
                        "--tunnel",
                        "cdc",
                        "--format",
                        "prometheus");

        String labels = "table=\"" + table + "\",tunnel=\"cdc\"";
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out().lines())
                .contains(
                        "# TYPE tablestore_cdc_channel_lag_seconds gauge",
                        "tablestore_cdc_channel_lag_seconds{" + labels + ",channel=\"p-1\"} 65.000",
                        "tablestore_cdc_channel_lag_seconds{" + labels + ",channel=\"p-2\"} 95.000",
                        "# TYPE tablestore_cdc_tunnel_max_lag_seconds gauge",
                        "tablestore_cdc_tunnel_max_lag_seconds{" + labels + "} 95.000",
                        "tablestore_cdc_tunnel_channels{" + labels + ",status=\"OPEN\"} 2");
        assertThat(run.out().lines())
                .allMatch(
                        l ->
                                l.startsWith("# HELP ")
                                        || l.startsWith("# TYPE ")
                                        || l.matches("tablestore_cdc_[a-z_]+\\{[^}]*\\} [0-9.]+"));
    }

    // ---- lease release ----

    @Test
    void leaseReleaseIsRefusedWhileTheHolderRenewsAndAcceptedAfterItStops() {
        String tunnelId = createTunnel("cdc", TunnelType.STREAM);
        MetaTable meta = metaTable(Clock.systemUTC());
        OwnerLeaseKeeper holder = OwnerLeaseKeeper.acquire(meta.tunnel(tunnelId), "flink-job-1234");
        holder.recordClient(new TunnelClientId(tunnelId, "client-of-the-holder"));
        holder.renew();
        String[] release = {
            "lease", "release", "--table", table, "--tunnel", "cdc", "--consumer", "flink-job-1234"
        };

        CliRun refused = cli(Clock.systemUTC(), release);
        CliRun otherConsumer =
                cli(
                        Clock.systemUTC(),
                        "lease",
                        "release",
                        "--table",
                        table,
                        "--tunnel",
                        "cdc",
                        "--consumer",
                        "/checkpoints/other");
        // The holder stops renewing (it died): two renewal periods later the lease is released.
        Clock later = Clock.offset(Clock.systemUTC(), OwnerLeaseKeeper.RENEW_EVERY.multipliedBy(2));
        CliRun released = cli(later, release);

        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.err())
                .contains("Refused: consumer 'flink-job-1234' renewed its lease", "--force");
        assertThat(otherConsumer.exitCode()).isEqualTo(1);
        assertThat(otherConsumer.err()).contains("held by consumer 'flink-job-1234'");
        assertThat(released.exitCode()).as(released.toString()).isZero();
        assertThat(released.out())
                .contains(
                        "Released the lease",
                        "flink-job-1234",
                        "flink job",
                        "client-of-the-holder");
        assertThat(meta.tunnel(tunnelId).owner()).isEmpty();
        // Had the holder been alive after all, it would stop at its next renewal.
        assertThatThrownBy(holder::renew).isInstanceOf(OwnershipLostException.class);
        OwnerLeaseKeeper.acquire(meta.tunnel(tunnelId), "/checkpoints/next").release();
    }

    @Test
    void leaseReleaseWithForceReleasesARenewedLease() {
        String tunnelId = createTunnel("cdc", TunnelType.STREAM);
        MetaTable meta = metaTable(Clock.systemUTC());
        OwnerLeaseKeeper.acquire(meta.tunnel(tunnelId), "/checkpoints/q");

        CliRun run =
                cli(
                        Clock.systemUTC(),
                        "lease",
                        "release",
                        "--table",
                        table,
                        "--tunnel",
                        "cdc",
                        "--consumer",
                        "/checkpoints/q",
                        "--force");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(meta.tunnel(tunnelId).owner()).isEmpty();
    }

    // ---- meta purge ----

    @Test
    void metaPurgeIsADryRunUntilYes() {
        String tunnelId = describedTunnel();
        MetaTable meta = metaTable(Clock.systemUTC());
        TunnelMeta tunnelMeta = meta.tunnel(tunnelId);
        tunnelMeta.releaseOwnership(tunnelMeta.owner().orElseThrow());
        long rows = meta.tunnelRows(tunnelId).rows();
        String[] purge = {"meta", "purge", "--table", table, "--tunnel", "cdc"};

        CliRun dry = cli(Clock.systemUTC(), purge);
        CliRun dryJson = cli(Clock.systemUTC(), append(purge, "--json"));

        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        assertThat(dry.out())
                .contains("Would delete " + rows + " rows (", "of tunnel " + tunnelId)
                .contains("snapshots:     2 (6 rows)", "Dry run: nothing was deleted");
        JsonObject doc = parse(dryJson);
        assertThat(doc.get("schema").getAsString()).isEqualTo("tablestore-cdc.purge");
        assertThat(doc.get("deleted").getAsBoolean()).isFalse();
        assertThat(doc.get("rows").getAsLong()).isEqualTo(rows);
        assertThat(doc.get("bytes").getAsLong()).isPositive();
        assertThat(meta.tunnelRows(tunnelId).rows()).isEqualTo(rows);

        CliRun deleted = cli(Clock.systemUTC(), "meta", "purge", "--tunnel-id", tunnelId, "--yes");

        assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
        assertThat(deleted.out()).contains("Deleted " + rows + " rows");
        assertThat(meta.tunnelRows(tunnelId).rows()).isZero();
        assertThat(meta.tunnel(tunnelId).batchLog()).isEmpty();
    }

    @Test
    void metaPurgeRefusesToDeleteTheRowsOfAConsumerThatHoldsTheTunnel() {
        String tunnelId = describedTunnel();
        MetaTable meta = metaTable(Clock.systemUTC());
        long rows = meta.tunnelRows(tunnelId).rows();

        CliRun run =
                cli(
                        Clock.fixed(READ_AT, ZoneOffset.UTC),
                        "meta",
                        "purge",
                        "--table",
                        table,
                        "--tunnel",
                        "cdc",
                        "--yes");
        CliRun noTarget = cli(Clock.systemUTC(), "meta", "purge", "--table", table);

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.err()).contains("Refused", "/checkpoints/orders", "lease release");
        assertThat(meta.tunnelRows(tunnelId).rows()).isEqualTo(rows);
        assertThat(noTarget.exitCode()).isEqualTo(TablestoreCdcCli.USAGE);
    }

    // ---- reprocess ----

    @Test
    void reprocessCreatesATunnelThatReadsFromTheGivenTime() {
        put("before");
        Instant from = Instant.now().plusMillis(2);
        while (!Instant.now().isAfter(from.plusMillis(2))) {
            Thread.onSpinWait(); // the next write must commit after "from"
        }
        put("after-1");
        put("after-2");

        CliRun run =
                cli(
                        Clock.systemUTC(),
                        "reprocess",
                        "--table",
                        table,
                        "--from",
                        from.toString(),
                        "--new-tunnel",
                        "again");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out())
                .contains("Created stream tunnel 'again'", ".option(\"tunnel.name\", \"again\")")
                .contains(".setTunnelName(\"again\")");
        assertThat(readAll("again")).containsExactly("after-1", "after-2");
        CliRun again =
                cli(
                        Clock.systemUTC(),
                        "reprocess",
                        "--table",
                        table,
                        "--from",
                        from.toString(),
                        "--new-tunnel",
                        "again");
        assertThat(again.exitCode()).isEqualTo(TablestoreCdcCli.SERVICE_ERROR);
        assertThat(again.err()).contains("choose another tunnel name");
    }

    // ---- service errors ----

    @Test
    void serviceErrorsExitThreeWithTheFixAndNeverTheSecret() throws IOException {
        createTunnel("cdc", TunnelType.STREAM);
        String secret = "wrong-secret-" + TABLES.get();
        Path wrong =
                Files.writeString(
                        dir.resolve("wrong.properties"),
                        "access.key.id="
                                + emulator.accessKeyId()
                                + "\naccess.key.secret="
                                + secret);

        CliRun denied =
                CliRun.run(
                        Clock.systemUTC(),
                        "describe",
                        "--endpoint",
                        emulator.endpoint(),
                        "--instance",
                        emulator.instanceName(),
                        "--credentials-file",
                        wrong.toString(),
                        "--table",
                        table,
                        "--tunnel",
                        "cdc");
        CliRun noTunnel = cli(Clock.systemUTC(), "describe", "--table", table, "--tunnel", "x");
        CliRun noTable =
                cli(Clock.systemUTC(), "describe", "--table", "no_such_table", "--tunnel", "cdc");
        CliRun noMetaTable =
                cli(
                        Clock.systemUTC(),
                        "describe",
                        "--table",
                        table,
                        "--tunnel",
                        "cdc",
                        "--meta-table",
                        "no_such_meta");

        assertThat(denied.exitCode()).as(denied.toString()).isEqualTo(3);
        assertThat(denied.err()).contains("access key id and secret", "credentials options");
        assertThat(denied.out() + denied.err()).doesNotContain(secret);
        assertThat(noTunnel.exitCode()).as(noTunnel.toString()).isEqualTo(3);
        assertThat(noTunnel.err()).contains("tunnel 'x'", "Check the table and tunnel names");
        assertThat(noTable.exitCode()).as(noTable.toString()).isEqualTo(3);
        assertThat(noTable.err()).contains("no_such_table");
        assertThat(noMetaTable.exitCode()).as(noMetaTable.toString()).isEqualTo(3);
        assertThat(noMetaTable.err()).contains("no_such_meta", "does not exist", "--meta-table");
        for (CliRun run : List.of(denied, noTunnel, noTable, noMetaTable)) {
            assertThat(run.out() + run.err()).doesNotContain(emulator.accessKeySecret());
        }
    }

    // ---- several tables ----

    @Test
    void describeOfAListShowsEachTableWithItsChannelsThenTheSummary() {
        String orders = table + "_orders";
        String users = table + "_users";
        String ordersTunnel = sourceTable(orders, "2030-01-01T00:00:00Z", "2029-12-31T23:59:30Z");
        String usersTunnel = sourceTable(users, "2030-01-01T00:01:00Z", "2029-12-31T23:58:05Z");
        Clock at = Clock.fixed(READ_AT, ZoneOffset.UTC);

        CliRun text = cli(at, "describe", "--table", users + "," + orders, "--tunnel", "cdc");
        CliRun json =
                cli(at, "describe", "--table", users + " , " + orders, "--tunnel", "cdc", "--json");

        assertThat(text.exitCode()).as(text.toString()).isZero();
        List<String> lines = text.out().lines().toList();
        int ordersAt = lines.indexOf("Tunnel 'cdc' of table '" + orders + "'");
        int usersAt = lines.indexOf("Tunnel 'cdc' of table '" + users + "'");
        assertThat(ordersAt).as(text.out()).isZero();
        assertThat(usersAt).as(text.out()).isGreaterThan(ordersAt);
        // Each section is what describe prints for its table alone.
        List<String> ordersSection = lines.subList(ordersAt, usersAt - 1);
        assertThat(ordersSection)
                .contains("  tunnel id:  " + ordersTunnel, "max lag: 1m35s")
                .anySatisfy(l -> assertThat(l).startsWith("p-1 ").endsWith("1m5s"))
                .anySatisfy(l -> assertThat(l).startsWith("p-2 ").endsWith("1m35s"));
        List<String> usersSection = lines.subList(usersAt, lines.size() - 2);
        assertThat(usersSection)
                .contains("  tunnel id:  " + usersTunnel, "max lag: 3m")
                .anySatisfy(l -> assertThat(l).startsWith("p-1 ").endsWith("5s"))
                .anySatisfy(l -> assertThat(l).startsWith("p-2 ").endsWith("3m"));
        assertThat(lines.get(lines.size() - 1))
                .isEqualTo(
                        "2 tables, 4 channels; max lag: 3m (table '" + users + "', channel 'p-2')");

        JsonObject doc = parse(json);
        assertThat(doc.keySet())
                .containsExactly(
                        "schema",
                        "version",
                        "tunnel",
                        "read_at",
                        "table_pattern",
                        "table_exclude",
                        "meta_table",
                        "tables",
                        "max_lag_ms",
                        "max_lag_table",
                        "max_lag_channel");
        assertThat(doc.get("schema").getAsString()).isEqualTo("tablestore-cdc.describe");
        assertThat(doc.get("tunnel").getAsString()).isEqualTo("cdc");
        assertThat(doc.get("table_pattern").isJsonNull()).isTrue();
        assertThat(doc.get("max_lag_ms").getAsLong()).isEqualTo(180_000);
        assertThat(doc.get("max_lag_table").getAsString()).isEqualTo(users);
        assertThat(doc.get("max_lag_channel").getAsString()).isEqualTo("p-2");
        JsonObject first = doc.getAsJsonArray("tables").get(0).getAsJsonObject();
        JsonObject second = doc.getAsJsonArray("tables").get(1).getAsJsonObject();
        assertThat(doc.getAsJsonArray("tables")).hasSize(2);
        for (JsonObject t : List.of(first, second)) {
            assertThat(t.keySet())
                    .containsExactly(
                            "table",
                            "meta_table",
                            "read_at",
                            "tunnel",
                            "owner",
                            "snapshots",
                            "channels",
                            "max_lag_ms");
            assertThat(t.getAsJsonArray("channels")).hasSize(2);
        }
        assertThat(first.get("table").getAsString()).isEqualTo(orders);
        assertThat(first.getAsJsonObject("tunnel").get("id").getAsString()).isEqualTo(ordersTunnel);
        assertThat(first.get("max_lag_ms").getAsLong()).isEqualTo(95_000);
        assertThat(second.get("table").getAsString()).isEqualTo(users);
        assertThat(second.get("max_lag_ms").getAsLong()).isEqualTo(180_000);
    }

    @Test
    void aPatternSelectsOnlyTheMatchingTablesAndNeverTheMetaTable() {
        String orders = table + "_orders";
        String users = table + "_users";
        sourceTable(orders, "2030-01-01T00:00:00Z", "2029-12-31T23:59:30Z");
        sourceTable(users, "2030-01-01T00:01:00Z", "2029-12-31T23:58:05Z");
        createTable(table + "_orders_archive"); // excluded, and it has no tunnel
        assertThat(sync.listTable().getTableNames())
                .contains(table, SdkMetaTableClient.DEFAULT_TABLE_NAME);
        // The pattern names the meta table too: it is never read.
        String pattern = table + "_.*|" + SdkMetaTableClient.DEFAULT_TABLE_NAME;
        Clock at = Clock.fixed(READ_AT, ZoneOffset.UTC);

        CliRun json =
                cli(
                        at,
                        "describe",
                        "--table-pattern",
                        pattern,
                        "--table-exclude",
                        ".*_archive",
                        "--tunnel",
                        "cdc",
                        "--json");
        CliRun text =
                cli(
                        at,
                        "describe",
                        "--table-pattern",
                        pattern,
                        "--table-exclude",
                        ".*_archive",
                        "--tunnel",
                        "cdc");
        // A pattern that matches one table still shows the form of several.
        CliRun one =
                cli(at, "lag", "--table-pattern", table + "_ord.*s", "--tunnel", "cdc", "--json");

        JsonObject doc = parse(json);
        assertThat(doc.get("table_pattern").getAsString()).isEqualTo(pattern);
        assertThat(doc.get("table_exclude").getAsString()).isEqualTo(".*_archive");
        assertThat(doc.getAsJsonArray("tables"))
                .extracting(t -> t.getAsJsonObject().get("table").getAsString())
                .containsExactly(orders, users);
        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.out())
                .contains("of table '" + orders + "'", "of table '" + users + "'")
                .doesNotContain("of table '" + SdkMetaTableClient.DEFAULT_TABLE_NAME + "'")
                .doesNotContain("_archive")
                .contains("2 tables, 4 channels; max lag: 3m");
        JsonObject single = parse(one);
        assertThat(single.getAsJsonArray("tables")).hasSize(1);
        assertThat(single.get("max_lag_table").getAsString()).isEqualTo(orders);
    }

    @Test
    void lagOfSeveralTablesChecksTheMaximumOverThemAll() {
        String orders = table + "_orders";
        String users = table + "_users";
        sourceTable(orders, "2030-01-01T00:00:00Z", "2029-12-31T23:59:30Z");
        sourceTable(users, "2030-01-01T00:01:00Z", "2029-12-31T23:58:05Z");
        Clock at = Clock.fixed(READ_AT, ZoneOffset.UTC);
        String both = orders + "," + users;

        CliRun within = cli(at, "lag", "--table", both, "--tunnel", "cdc", "--max-lag", "3m");
        CliRun above = cli(at, "lag", "--table", both, "--tunnel", "cdc", "--max-lag", "2m");
        CliRun json =
                cli(at, "lag", "--table", both, "--tunnel", "cdc", "--max-lag", "2m", "--json");
        CliRun prometheus =
                cli(at, "lag", "--table", both, "--tunnel", "cdc", "--format", "prometheus");

        assertThat(within.exitCode()).as(within.toString()).isZero();
        assertThat(within.out().lines())
                .containsSubsequence(
                        "Tunnel 'cdc' of table '" + orders + "'",
                        "max lag: 1m35s",
                        "Tunnel 'cdc' of table '" + users + "'",
                        "max lag: 3m",
                        "2 tables, 4 channels; max lag: 3m (table '" + users + "', channel 'p-2')");
        assertThat(above.exitCode()).as(above.toString()).isEqualTo(TablestoreCdcCli.CHECK_FAILED);
        assertThat(above.err())
                .contains(
                        "of table '" + users + "' lags 3m (channel 'p-2'), more than --max-lag 2m",
                        "tables above it: " + users + " (3m).");
        assertThat(json.exitCode()).isEqualTo(TablestoreCdcCli.CHECK_FAILED);
        JsonObject doc = parse(json);
        assertThat(doc.get("schema").getAsString()).isEqualTo("tablestore-cdc.lag");
        assertThat(doc.get("max_lag_ms").getAsLong()).isEqualTo(180_000);
        assertThat(doc.get("max_lag_table").getAsString()).isEqualTo(users);
        assertThat(doc.get("threshold_ms").getAsLong()).isEqualTo(120_000);
        assertThat(doc.get("exceeded").getAsBoolean()).isTrue();
        JsonObject first = doc.getAsJsonArray("tables").get(0).getAsJsonObject();
        assertThat(first.keySet())
                .containsExactly(
                        "table",
                        "tunnel",
                        "tunnel_id",
                        "read_at",
                        "channels",
                        "max_lag_ms",
                        "threshold_ms",
                        "exceeded");
        assertThat(first.get("table").getAsString()).isEqualTo(orders);
        assertThat(first.get("exceeded").getAsBoolean()).isFalse();
        assertThat(doc.getAsJsonArray("tables").get(1).getAsJsonObject().get("exceeded"))
                .extracting(e -> e.getAsBoolean())
                .isEqualTo(true);

        assertThat(prometheus.exitCode()).as(prometheus.toString()).isZero();
        List<String> series = prometheus.out().lines().toList();
        for (String metric :
                List.of(
                        "tablestore_cdc_channel_lag_seconds",
                        "tablestore_cdc_tunnel_max_lag_seconds",
                        "tablestore_cdc_tunnel_channels")) {
            assertThat(series).containsOnlyOnce("# TYPE " + metric + " gauge");
            assertThat(series.stream().filter(l -> l.startsWith("# HELP " + metric + " ")))
                    .hasSize(1);
        }
        assertThat(series)
                .containsSubsequence(
                        "# TYPE tablestore_cdc_channel_lag_seconds gauge",
                        "tablestore_cdc_channel_lag_seconds{table=\""
                                + orders
                                + "\",tunnel=\"cdc\",channel=\"p-2\"} 95.000",
                        "tablestore_cdc_channel_lag_seconds{table=\""
                                + users
                                + "\",tunnel=\"cdc\",channel=\"p-2\"} 180.000",
                        "# TYPE tablestore_cdc_tunnel_max_lag_seconds gauge",
                        "tablestore_cdc_tunnel_max_lag_seconds{table=\""
                                + orders
                                + "\",tunnel=\"cdc\"} 95.000",
                        "tablestore_cdc_tunnel_max_lag_seconds{table=\""
                                + users
                                + "\",tunnel=\"cdc\"} 180.000",
                        "# TYPE tablestore_cdc_tunnel_channels gauge",
                        "tablestore_cdc_tunnel_channels{table=\""
                                + users
                                + "\",tunnel=\"cdc\",status=\"OPEN\"} 2");
    }

    @Test
    void aSelectionTheInstanceCannotMeetIsAUsageErrorNamingTheFix() {
        String orders = table + "_orders";
        sourceTable(orders, "2030-01-01T00:00:00Z", "2029-12-31T23:59:30Z");
        String meta = SdkMetaTableClient.DEFAULT_TABLE_NAME;

        CliRun missing =
                cli(
                        Clock.systemUTC(),
                        "describe",
                        "--table",
                        orders + "," + table + "_nope",
                        "--tunnel",
                        "cdc");
        CliRun none =
                cli(Clock.systemUTC(), "lag", "--table-pattern", table + "_x.*", "--tunnel", "cdc");
        CliRun excludedAll =
                cli(
                        Clock.systemUTC(),
                        "lag",
                        "--table-pattern",
                        table + "_.*",
                        "--table-exclude",
                        ".*_orders",
                        "--tunnel",
                        "cdc");
        CliRun theMetaTable =
                cli(Clock.systemUTC(), "lag", "--table", orders + "," + meta, "--tunnel", "cdc");

        for (CliRun run : List.of(missing, none, excludedAll, theMetaTable)) {
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(TablestoreCdcCli.USAGE);
            assertThat(run.out()).isEmpty();
            assertThat(run.err())
                    .startsWith("Error: Option '--table")
                    .doesNotContain("table.name", "table.pattern", "table.exclude")
                    .doesNotContain(emulator.accessKeySecret());
        }
        assertThat(missing.err())
                .contains(
                        "Option '--table' names a table that instance '"
                                + emulator.instanceName()
                                + "' does not hold: "
                                + table
                                + "_nope. Its tables: ",
                        "Create the table, or fix the name.",
                        "See 'tablestore-cdc describe --help'.");
        assertThat(none.err())
                .contains(
                        "Option '--table-pattern' = '" + table + "_x.*' selects no table",
                        "the meta table '" + meta + "' is never read",
                        "Fix the pattern, or create a matching table first.");
        assertThat(excludedAll.err())
                .contains("with --table-exclude = '.*_orders' selects no table");
        assertThat(theMetaTable.err())
                .contains("names the meta table '" + meta + "'", "remove it from the list");
    }

    @Test
    void listingTheTablesWithAWrongSecretExitsThreeWithoutTheSecret() throws IOException {
        String secret = "wrong-secret-" + TABLES.get();
        Path wrong =
                Files.writeString(
                        dir.resolve("wrong-list.properties"),
                        "access.key.id="
                                + emulator.accessKeyId()
                                + "\naccess.key.secret="
                                + secret);

        CliRun run =
                CliRun.run(
                        Clock.systemUTC(),
                        "lag",
                        "--endpoint",
                        emulator.endpoint(),
                        "--instance",
                        emulator.instanceName(),
                        "--credentials-file",
                        wrong.toString(),
                        "--table-pattern",
                        table + "_.*",
                        "--tunnel",
                        "cdc");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(TablestoreCdcCli.SERVICE_ERROR);
        assertThat(run.err())
                .contains(
                        "Error: Could not list the tables of instance '"
                                + emulator.instanceName()
                                + "'",
                        "--table-pattern needs the ListTable permission",
                        "or name the tables in --table.")
                .doesNotContain("table.name", "table.pattern")
                .doesNotContain(secret, emulator.accessKeySecret());
    }

    // ---- the rows a consumer writes ----

    private static final BatchToken T7 = BatchToken.parse("77777777-7777-4777-8777-777777777777");
    private static final BatchToken T8 = BatchToken.parse("88888888-8888-4888-8888-888888888888");

    /**
     * A stream tunnel over two partitions, held by a Spark query whose newest snapshot (batch 8)
     * read p-1 up to 00:00:00 and p-2 up to 23:59:30 the day before, in 2030.
     */
    private String describedTunnel() {
        emulator.tunnels().split(table, key("m"));
        String tunnelId = createTunnel("cdc", TunnelType.STREAM);
        SdkTunnelProxy proxy = SdkTunnelProxy.create(endpoint());
        try {
            TunnelClientId client = proxy.connect(tunnelId, "it", Duration.ofMinutes(1));
            proxy.heartbeat(client, List.of());
        } finally {
            proxy.close();
        }
        MetaTable meta =
                metaTable(Clock.fixed(Instant.parse("2030-01-01T00:00:05Z"), ZoneOffset.UTC));
        meta.ensureTable();
        meta.tunnel(tunnelId)
                .seed(
                        snapshot(tunnelId, T7, 41, "2029-12-31T23:59:00Z", "2029-12-31T23:59:00Z"),
                        7);
        MetaTable later =
                metaTable(Clock.fixed(Instant.parse("2030-01-01T00:00:30Z"), ZoneOffset.UTC));
        later.tunnel(tunnelId)
                .seed(
                        snapshot(tunnelId, T8, 42, "2030-01-01T00:00:00Z", "2029-12-31T23:59:30Z"),
                        8);
        OwnerLeaseKeeper.acquire(later.tunnel(tunnelId), "/checkpoints/orders");
        return tunnelId;
    }

    private static BatchSnapshot snapshot(
            String tunnelId, BatchToken token, int n, String p1Time, String p2Time) {
        Map<String, ChannelCheckpoint> channels = new TreeMap<>();
        channels.put("p-1", entry("p-1", n, 0, p1Time));
        channels.put("p-2", entry("p-2", n, 3, p2Time));
        return new BatchSnapshot(tunnelId, token, channels);
    }

    private static ChannelCheckpoint entry(String channel, int n, long skip, String lastRecord) {
        long micros = Instant.parse(lastRecord).toEpochMilli() * 1000;
        return new ChannelCheckpoint(
                channel,
                ChannelType.STREAM,
                ChannelLifecycle.READING,
                ChannelPosition.at(String.format("token-%s-%04d", channel, n), skip),
                5,
                ChannelPosition.at("token-" + channel + "-0000"),
                new SequenceInfo(1, micros, 0));
    }

    private String createTunnel(String name, TunnelType type) {
        SdkTunnelProxy proxy = SdkTunnelProxy.create(endpoint());
        try {
            return proxy.createTunnel(table, name, type, TunnelStart.latest());
        } finally {
            proxy.close();
        }
    }

    /**
     * Table {@code name} of a source of several tables: its stream tunnel 'cdc' over two
     * partitions, held by a Spark query whose newest snapshot (batch 8) read p-1 up to {@code
     * p1Time} and p-2 up to {@code p2Time}.
     */
    private String sourceTable(String name, String p1Time, String p2Time) {
        createTable(name);
        emulator.tunnels().split(name, key("m"));
        String tunnelId;
        SdkTunnelProxy proxy = SdkTunnelProxy.create(endpoint());
        try {
            tunnelId = proxy.createTunnel(name, "cdc", TunnelType.STREAM, TunnelStart.latest());
            TunnelClientId client = proxy.connect(tunnelId, "it", Duration.ofMinutes(1));
            proxy.heartbeat(client, List.of());
        } finally {
            proxy.close();
        }
        MetaTable meta =
                metaTable(Clock.fixed(Instant.parse("2030-01-01T00:00:30Z"), ZoneOffset.UTC));
        meta.tunnel(tunnelId).seed(snapshot(tunnelId, T8, 42, p1Time, p2Time), 8);
        OwnerLeaseKeeper.acquire(meta.tunnel(tunnelId), "/checkpoints/" + name);
        return tunnelId;
    }

    private static void createTable(String name) {
        TableMeta meta = new TableMeta(name);
        meta.addPrimaryKeyColumn(new PrimaryKeySchema("id", PrimaryKeyType.STRING));
        sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
    }

    private List<String> readAll(String tunnelName) {
        SdkTunnelProxy proxy = SdkTunnelProxy.create(endpoint());
        try {
            String tunnelId = proxy.describeTunnel(table, tunnelName).tunnelId();
            TunnelClientId client = proxy.connect(tunnelId, "it", Duration.ofMinutes(1));
            proxy.heartbeat(client, List.of());
            String token = proxy.getCheckpoint(client, "p-0").position().token();
            List<String> ids = new ArrayList<>();
            for (int reads = 0; reads < 100; reads++) {
                ReadResult result = proxy.readRecords(client, "p-0", token);
                for (ChangeRecord r : result.records()) {
                    ids.add(r.primaryKey().get(0).value().asString());
                }
                if (result.isFinished()
                        || (!result.mayMoreRecord() && result.records().isEmpty())) {
                    break;
                }
                token = result.next().token();
            }
            proxy.shutdown(client);
            return ids;
        } finally {
            proxy.close();
        }
    }

    private void put(String id) {
        RowPutChange change = new RowPutChange(table, key(id));
        change.addColumn(new Column("v", ColumnValue.fromLong(1)));
        AppliedOnceWrites.put(sync, change);
    }

    private static PrimaryKey key(String id) {
        return PrimaryKeyBuilder.createPrimaryKeyBuilder()
                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                .build();
    }

    private static TablestoreEndpoint endpoint() {
        return new TablestoreEndpoint(
                emulator.endpoint(),
                emulator.instanceName(),
                TablestoreCredentials.of(emulator.accessKeyId(), emulator.accessKeySecret()));
    }

    private static MetaTable metaTable(Clock clock) {
        MetaTable meta =
                new MetaTable(
                        SdkMetaTableClient.connect(
                                endpoint(), SdkMetaTableClient.DEFAULT_TABLE_NAME),
                        clock);
        meta.ensureTable();
        return meta;
    }

    private static CliRun cli(Clock clock, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        int at = args[0].equals("lease") || args[0].equals("meta") ? 2 : 1;
        all.addAll(
                at,
                List.of(
                        "--endpoint", emulator.endpoint(),
                        "--instance", emulator.instanceName(),
                        "--credentials-file", credentials.toString()));
        return CliRun.run(clock, all.toArray(String[]::new));
    }

    private static String[] append(String[] args, String more) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = more;
        return all;
    }

    private static JsonObject parse(CliRun run) {
        assertThat(run.out()).as(run.toString()).startsWith("{");
        return JsonParser.parseString(run.out()).getAsJsonObject();
    }

    private static String line(String text, String containing) {
        return text.lines().filter(l -> l.contains(containing)).findFirst().orElse("");
    }

    /** The tunnel id and the server's own times (the emulator's clock) masked. */
    private static String masked(String out, String tunnelId) {
        return out.replace(tunnelId, "<tunnel-id>")
                .replaceAll("'cli_it_\\d+'", "'<table>'")
                .replaceAll(
                        "(?!2029|2030)\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ",
                        "<server-time>       ");
    }

    private static String golden(String name) throws IOException {
        try (InputStream in = CliITCase.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
