package io.tablestorecdc.checkpoint.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.merge.AdoptionHistory;
import io.tablestorecdc.checkpoint.merge.MergeResult;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.merge.VanishedChannelPolicy;
import io.tablestorecdc.checkpoint.meta.ConsumerProgress;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.OwnershipConflictException;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.PreparedSnapshot;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.checkpoint.tunnel.TunnelSessionConfig;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one consumer both engines drive: open order, fencing (invariant 8), channel start. */
class TunnelConsumerTest {

    private final FakeTunnelService server =
            FakeTunnelService.oneStreamChannel("tunnel-t", "c1").addChannel("c2");
    private final InMemoryMetaTableClient meta = new InMemoryMetaTableClient();
    private final List<TunnelConsumer> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(TunnelConsumer::close);
    }

    private TunnelConsumer open(String consumerId, int retention) {
        return open(consumerId, retention, Optional.empty());
    }

    /** A run restored from state written under the lease acquisition {@code restoredHolder}. */
    private TunnelConsumer restored(String consumerId, String restoredHolder) {
        return open(consumerId, MetaTable.DEFAULT_RETENTION_BATCHES, Optional.of(restoredHolder));
    }

    private TunnelConsumer open(String consumerId, int retention, Optional<String> restoredHolder) {
        return open(consumerId, retention, restoredHolder, server, "table");
    }

    /** A consumer of {@code table}'s tunnel on {@code tunnels}, with this test's meta table. */
    private TunnelConsumer open(String consumerId, FakeTunnelService tunnels, String table) {
        return open(
                consumerId, MetaTable.DEFAULT_RETENTION_BATCHES, Optional.empty(), tunnels, table);
    }

    private TunnelConsumer open(
            String consumerId,
            int retention,
            Optional<String> restoredHolder,
            FakeTunnelService tunnels,
            String table) {
        TunnelConsumer consumer =
                TunnelConsumer.open(
                        new TunnelConsumer.Setup(
                                        Engine.FLINK,
                                        new TunnelOpener(
                                                Engine.FLINK,
                                                table,
                                                "t",
                                                Optional.empty(),
                                                TunnelStart.latest()),
                                        consumerId,
                                        meta.tableName(),
                                        TunnelSessionConfig.withDefaults("test"),
                                        MetaTable.DEFAULT_FULL_SNAPSHOT_EVERY,
                                        retention)
                                .restoredUnder(restoredHolder),
                        tunnels,
                        meta,
                        Optional.empty(),
                        new ServerPushLedger(),
                        Optional.empty(),
                        Optional.empty());
        opened.add(consumer);
        return consumer;
    }

    /** The tunnel of a second table, {@code users}, with one channel {@code d1}. */
    private static FakeTunnelService usersTunnel() {
        return new FakeTunnelService("users", "t", "tunnel-u", TunnelType.STREAM)
                .channel("d1", ChannelType.STREAM);
    }

    private TunnelConsumer open(String consumerId) {
        return open(consumerId, MetaTable.DEFAULT_RETENTION_BATCHES);
    }

    private static BatchSnapshot snapshot(String channelId, String token) {
        ChannelCheckpoint entry =
                ChannelCheckpoint.adopted(
                                channelId, ChannelType.STREAM, ChannelPosition.at(channelId + "@0"))
                        .advancedTo(ChannelPosition.at(token), 1, SequenceInfo.NONE);
        return new BatchSnapshot("tunnel-t", BatchToken.random(), Map.of(channelId, entry));
    }

    /** A channel read to its {@code n}th position, {@code n} records in the last batch. */
    private static ChannelCheckpoint entry(String channelId, int n) {
        return ChannelCheckpoint.adopted(
                        channelId, ChannelType.STREAM, ChannelPosition.at(channelId + "@0"))
                .advancedTo(ChannelPosition.at(channelId + "@" + n), n, SequenceInfo.NONE);
    }

    private static BatchSnapshot of(String tunnelId, ChannelCheckpoint... entries) {
        Map<String, ChannelCheckpoint> channels = new LinkedHashMap<>();
        for (ChannelCheckpoint c : entries) {
            channels.put(c.channelId(), c);
        }
        return new BatchSnapshot(tunnelId, BatchToken.random(), channels);
    }

    private static ServerCommitPlan plan(String channelId, String token) {
        return ServerCommitPlan.forCommitted(snapshot(channelId, token), Map.of());
    }

    @Test
    void theLeaseIsTakenBeforeTheClientConnectsAndTheClientIsRecorded() {
        TunnelConsumer consumer = open("job-1");

        assertThat(server.connects()).isEqualTo(1);
        TunnelMeta store = new MetaTable(meta).tunnel("tunnel-t");
        assertThat(store.owner().orElseThrow().consumerId()).isEqualTo("job-1");
        assertThat(store.lastTunnelClient()).contains(consumer.clientId().clientId());
    }

    @Test
    void aSecondConsumerIsRefusedBeforeItsClientConnects() {
        open("job-1");

        assertThatThrownBy(() -> open("job-2"))
                .isInstanceOf(OwnershipConflictException.class)
                .hasMessageContaining("s from now")
                .hasMessageEndingWith(
                        "release its lease at once with the tablestore-cdc command line:"
                                + " bin/tablestore-cdc lease release --table table --tunnel t"
                                + " --consumer job-1 --meta-table fake_meta (see"
                                + " docs/operations.md).");
        assertThat(server.connects()).isEqualTo(1);
    }

    @Test
    void theReleaseCommandQuotesAHoldersIdAsAShellNeedsIt() {
        open("/checkpoints/o'rders query");

        assertThatThrownBy(() -> open("job-2"))
                .isInstanceOf(OwnershipConflictException.class)
                .hasMessageContaining("--consumer '/checkpoints/o'\\''rders query' --meta-table");
    }

    @Test
    void aConsumerWhoseLeaseWasTakenOverWritesPushesAndRenewsNothingMore() {
        TunnelConsumer old = open("job-1");
        old.writeSnapshot(snapshot("c1", "c1@1"), 1, List.of());
        // Two jobs restored from the same checkpoint are one consumer to the lease: the later one
        // takes the tunnel over at once, while the earlier still runs (or was frozen).
        TunnelConsumer replacement = open("job-1");
        int rows = meta.rowCount();
        int pushesBefore = server.requests().pushes().size();

        assertThatThrownBy(() -> old.writeSnapshot(snapshot("c1", "c1@2"), 2, List.of()))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("lost its owner lease")
                .hasMessageContaining("writes no meta row, pushes no position");
        assertThatThrownBy(() -> old.push(plan("c1", "c1@2")))
                .isInstanceOf(OwnershipLostException.class);
        assertThatThrownBy(
                        () ->
                                old.recordAdoptions(
                                        List.of(snapshot("c2", "c2@0").channels().get("c2"))))
                .isInstanceOf(OwnershipLostException.class);
        old.renewNextTick();
        assertThatThrownBy(old::tick).isInstanceOf(OwnershipLostException.class);
        assertThatThrownBy(old::checkHealthy).isInstanceOf(OwnershipLostException.class);

        assertThat(meta.rowCount()).isEqualTo(rows);
        assertThat(server.requests().pushes()).hasSize(pushesBefore);
        assertThat(old.pushes().finishRounds()).isZero();

        old.close(); // leaves the new owner's lease alone
        assertThat(new MetaTable(meta).tunnel("tunnel-t").owner().orElseThrow().holder())
                .isEqualTo(replacementHolder(replacement));
        replacement.writeSnapshot(snapshot("c1", "c1@2"), 2, List.of());
    }

    @Test
    void theLeasesOfManyConsumersAreReadInOneRequestAndEachLossIsTheConsumersOwn() {
        FakeTunnelService others = usersTunnel();
        TunnelConsumer orders = open("job-1");
        TunnelConsumer users = open("job-1", others, "users");
        meta.resetCounts();

        TunnelConsumer.requireOwnership(meta, List.of(orders, users));

        assertThat(meta.totalRequests()).as("one BatchGetRow").isEqualTo(1);
        assertThat(meta.requests("BatchGetRow")).isEqualTo(1);
        open("job-1", others, "users"); // a run restored from the same state takes users over
        assertThatThrownBy(() -> TunnelConsumer.requireOwnership(meta, List.of(orders, users)))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("of table 'users' lost its owner lease");
        assertThat(users.isLost()).isTrue();
        assertThat(orders.isLost()).isFalse();
        orders.writeSnapshot(snapshot("c1", "c1@1"), 1, List.of());
        assertThatThrownBy(users::checkHealthy).isInstanceOf(OwnershipLostException.class);
    }

    @Test
    void aClientTheServerForgotIsReportedAsTheLostLeaseOnlyWhenTheTunnelWasTakenOver() {
        TunnelConsumer old = open("job-1");
        TunnelException gone =
                new TunnelException(
                        TunnelException.Kind.LOST_OWNERSHIP, "client not exist: the old client");
        TunnelException other = new TunnelException(TunnelException.Kind.REJECTED, "quota");

        assertThat(old.explain(gone)).as("still the owner").isSameAs(gone);

        open("job-1"); // a run restored from the same checkpoint shuts the old client down

        assertThat(old.explain(other)).isSameAs(other);
        assertThat(old.explain(gone))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("lost its owner lease")
                .hasMessageContaining("another run of consumer 'job-1' holds it now");
        assertThat(old.isLost()).isTrue();
    }

    @Test
    void aRestartOfARunThatLostItsLeaseIsRefusedAndTheRunThatReplacedItKeepsReading() {
        TunnelConsumer old = open("job-1");
        // Another run started from the old run's checkpoint takes the tunnel over.
        TunnelConsumer replacement = restored("job-1", old.holder());
        assertThatThrownBy(old::requireOwnership).isInstanceOf(OwnershipLostException.class);
        old.close();
        int connects = server.connects();

        // The old run's engine restarts it from its own checkpoint, as a restart strategy does.
        assertThatThrownBy(() -> restored("job-1", old.holder()))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("lost its owner lease to another run")
                .hasMessageContaining("is not restarted");

        assertThat(server.connects())
                .as("no request: refused before the tunnel")
                .isEqualTo(connects);
        replacement.requireOwnership();
        replacement.writeSnapshot(snapshot("c1", "c1@2"), 2, List.of());
    }

    @Test
    void aLeaseFoundTakenOverOnlyWhenClosingIsRememberedAsLostToo() {
        TunnelConsumer old = open("job-1");
        TunnelConsumer replacement = restored("job-1", old.holder());
        old.close(); // e.g. a failover after a read failed: the release finds the row changed

        assertThatThrownBy(() -> restored("job-1", old.holder()))
                .isInstanceOf(OwnershipLostException.class);
        replacement.requireOwnership();
    }

    @Test
    void aRunThatReleasedItsLeaseIsRestartedFromItsState() {
        TunnelConsumer first = open("job-1");
        String holder = first.holder();
        first.close();

        TunnelConsumer restarted = restored("job-1", holder);

        restarted.requireOwnership();
        assertThat(restarted.holder()).isNotEqualTo(holder);
    }

    /**
     * A meta write still running when the engine closes the consumer (Flink's last checkpoint's
     * purge after a stop with a savepoint) finds the lease released by that close: it is refused as
     * a write of a closed consumer, not taken for a lost lease, so that the job restored from the
     * savepoint starts.
     */
    /** {@code consumer}'s next snapshot of one channel, prepared and not written. */
    private static PreparedSnapshot prepared(TunnelConsumer consumer, String channelId) {
        BatchSnapshot next = snapshot(channelId, channelId + "@1");
        return consumer.meta()
                .prepare(
                        next.token(),
                        1,
                        Optional.empty(),
                        next.channels().keySet(),
                        next.channels().values());
    }

    @Test
    void theSnapshotsOfManyConsumersAreFencedOnceAndWrittenTogether() {
        FakeTunnelService others = usersTunnel();
        TunnelConsumer orders = open("job-1");
        TunnelConsumer users = open("job-1", others, "users");
        Map<TunnelConsumer, PreparedSnapshot> batch = new LinkedHashMap<>();
        batch.put(orders, prepared(orders, "c1"));
        batch.put(users, prepared(users, "d1"));
        meta.resetCounts();

        TunnelConsumer.writeAll(meta, batch);

        assertThat(meta.requests("BatchGetRow")).as("both leases in one read").isEqualTo(1);
        assertThat(meta.requests("GetRow")).isZero();
        assertThat(meta.requests("PutRow")).isZero();
        assertThat(meta.requests("BatchWriteRow")).as("logs, manifests, entries").isEqualTo(3);
        assertThat(new MetaTable(meta).tunnel("tunnel-u").read(batch.get(users).token()).channels())
                .containsOnlyKeys("d1");

        open("job-1", others, "users"); // a run restored from the same state takes users over
        Map<TunnelConsumer, PreparedSnapshot> after = new LinkedHashMap<>();
        after.put(orders, prepared(orders, "c1"));
        after.put(users, prepared(users, "d1"));
        int rows = meta.rowCount();
        meta.resetCounts();

        assertThatThrownBy(() -> TunnelConsumer.writeAll(meta, after))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("of table 'users' lost its owner lease");
        assertThat(meta.requests("BatchWriteRow")).as("nothing written for any table").isZero();
        assertThat(meta.rowCount()).isEqualTo(rows);
        assertThat(users.isLost()).isTrue();
        assertThat(orders.isLost()).isFalse();

        orders.close();
        Map<TunnelConsumer, PreparedSnapshot> closed = new LinkedHashMap<>();
        closed.put(orders, prepared(orders, "c1"));
        assertThatThrownBy(() -> TunnelConsumer.writeAll(meta, closed))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
    }

    @Test
    void theCatchUpReportsOfManyConsumersAreFencedOnceAndWrittenTogether() {
        FakeTunnelService others = usersTunnel();
        TunnelConsumer orders = open("job-1");
        TunnelConsumer users = open("job-1", others, "users");
        // Each tunnel holds a report of this run already, as after its first write.
        orders.meta().reportProgress(orders.catchUp().current());
        users.meta().reportProgress(users.catchUp().current());
        orders.catchUp().caughtUp("c1", ChannelPosition.at("c1@5"));
        users.catchUp().caughtUp("d1", ChannelPosition.at("d1@7"));
        meta.resetCounts();

        TunnelConsumer.reportAll(meta, List.of(orders, users));

        assertThat(meta.requests("BatchGetRow")).as("both leases in one read").isEqualTo(1);
        assertThat(meta.requests("BatchWriteRow")).as("both reports in one write").isEqualTo(1);
        assertThat(meta.requests("GetRow")).isZero();
        assertThat(meta.requests("PutRow")).isZero();
        assertThat(orders.meta().progress().orElseThrow().caughtUp())
                .containsExactly(Map.entry("c1", ChannelPosition.at("c1@5")));
        assertThat(users.meta().progress().orElseThrow().caughtUp())
                .containsExactly(Map.entry("d1", ChannelPosition.at("d1@7")));

        // A change within a second of the last write is not due yet: nothing is sent.
        orders.catchUp().caughtUp("c1", ChannelPosition.at("c1@6"));
        meta.resetCounts();
        TunnelConsumer.reportAll(meta, List.of(orders, users));
        assertThat(meta.requests("BatchWriteRow") + meta.requests("PutRow")).isZero();
    }

    @Test
    void firstCatchUpReportsAreCreatedTogetherAndALostLeaseStopsTheSharedWrite() {
        FakeTunnelService others = usersTunnel();
        TunnelConsumer orders = open("job-1");
        TunnelConsumer users = open("job-1", others, "users");
        orders.catchUp().caughtUp("c1", ChannelPosition.at("c1@5"));
        meta.resetCounts();

        TunnelConsumer.reportAll(meta, List.of(orders, users));

        assertThat(meta.requests("BatchWriteRow")).as("a replace, then a create").isEqualTo(2);
        assertThat(meta.requests("PutRow") + meta.requests("GetRow")).isZero();
        assertThat(orders.meta().progress().orElseThrow().caughtUp()).containsKey("c1");
        assertThat(users.meta().progress()).as("nothing to report, nothing written").isEmpty();

        // From the first shared write on, a consumer's own tick leaves its report to the next.
        users.catchUp().caughtUp("d1", ChannelPosition.at("d1@7"));
        users.tick();
        assertThat(users.meta().progress()).isEmpty();

        open("job-1", others, "users"); // a run restored from the same state takes users over
        meta.resetCounts();
        assertThatThrownBy(() -> TunnelConsumer.reportAll(meta, List.of(orders, users)))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("of table 'users' lost its owner lease");
        assertThat(meta.requests("BatchWriteRow") + meta.requests("PutRow")).isZero();
    }

    @Test
    void aReportOfAnEarlierRunIsReplacedByItsTunnelsOwnWrite() {
        TunnelConsumer first = open("job-1");
        first.catchUp().caughtUp("c1", ChannelPosition.at("c1@5"));
        TunnelConsumer.reportAll(meta, List.of(first));
        first.close();

        TunnelConsumer second = open("job-1"); // the next run, under a new acquisition
        second.catchUp().caughtUp("c1", ChannelPosition.at("c1@9"));
        TunnelConsumer.reportAll(meta, List.of(second));

        ConsumerProgress report = second.meta().progress().orElseThrow();
        assertThat(report.holder()).isEqualTo(second.catchUp().current().holder());
        assertThat(report.caughtUp()).containsEntry("c1", ChannelPosition.at("c1@9"));
    }

    @Test
    void theCheckpointSnapshotsOfManyConsumersAreWrittenTogetherEachADeltaOverItsLast() {
        FakeTunnelService others = usersTunnel();
        TunnelConsumer orders = open("job-1");
        TunnelConsumer users = open("job-1", others, "users");
        Map<TunnelConsumer, TunnelConsumer.SnapshotWrite> first = new LinkedHashMap<>();
        first.put(
                orders,
                new TunnelConsumer.SnapshotWrite(
                        of("tunnel-t", entry("c1", 1), entry("c2", 1)), 1, List.of()));
        first.put(
                users,
                new TunnelConsumer.SnapshotWrite(of("tunnel-u", entry("d1", 1)), 1, List.of()));
        TunnelConsumer.writeSnapshots(meta, first);
        meta.resetCounts();

        BatchSnapshot next = of("tunnel-t", entry("c1", 2), entry("c2", 1).carriedForward());
        Map<TunnelConsumer, TunnelConsumer.SnapshotWrite> second = new LinkedHashMap<>();
        second.put(orders, new TunnelConsumer.SnapshotWrite(next, 2, List.of()));
        second.put(
                users,
                new TunnelConsumer.SnapshotWrite(of("tunnel-u", entry("d1", 2)), 2, List.of()));
        TunnelConsumer.writeSnapshots(meta, second);

        assertThat(meta.requests("BatchGetRow")).as("both leases in one read").isEqualTo(1);
        assertThat(meta.requests("BatchWriteRow")).isEqualTo(3);
        assertThat(meta.totalRequests()).as("no purge reads within the retention").isEqualTo(4);
        assertThat(new MetaTable(meta).tunnel("tunnel-t").read(next.token())).isEqualTo(next);
        assertThat(meta.rowsUnder("tunnel-t", next.token().toString()))
                .as("a delta: the manifest and the one changed channel")
                .hasSize(2);
    }

    @Test
    void theAdoptionsOfManyConsumersGoInTheirSharedSnapshotWriteAndAreRecordedOnce() {
        FakeTunnelService others = usersTunnel();
        TunnelConsumer orders = open("job-1");
        TunnelConsumer users = open("job-1", others, "users");
        ChannelCheckpoint c1 = entry("c1", 1);
        ChannelCheckpoint d1 = entry("d1", 1);
        Map<TunnelConsumer, TunnelConsumer.SnapshotWrite> first = new LinkedHashMap<>();
        first.put(orders, new TunnelConsumer.SnapshotWrite(of("tunnel-t", c1), 1, List.of(c1)));
        first.put(users, new TunnelConsumer.SnapshotWrite(of("tunnel-u", d1), 1, List.of(d1)));
        meta.resetCounts();

        TunnelConsumer.writeSnapshots(meta, first);

        assertThat(meta.requests("BatchGetRow")).as("both leases in one read").isEqualTo(1);
        assertThat(meta.requests("GetRow")).isZero();
        assertThat(meta.requests("BatchWriteRow"))
                .as("adoptions, logs, manifests, entries")
                .isEqualTo(4);
        assertThat(new MetaTable(meta).tunnel("tunnel-u").adoptions())
                .containsEntry("d1", d1.adoptedAt());
        meta.resetCounts();
        users.recordAdoptions(List.of(d1));
        assertThat(meta.totalRequests()).as("known recorded").isZero();

        Map<TunnelConsumer, TunnelConsumer.SnapshotWrite> second = new LinkedHashMap<>();
        second.put(
                orders,
                new TunnelConsumer.SnapshotWrite(of("tunnel-t", entry("c1", 2)), 2, List.of(c1)));
        meta.resetCounts();
        TunnelConsumer.writeSnapshots(meta, second);
        assertThat(meta.requests("BatchWriteRow")).as("no adoption written again").isEqualTo(3);
    }

    @Test
    void thePushesOfManyConsumersCheckTheirLeasesInOneRead() {
        FakeTunnelService others = usersTunnel();
        TunnelConsumer orders = open("job-1");
        TunnelConsumer users = open("job-1", others, "users");
        Map<TunnelConsumer, ServerCommitPlan> plans = new LinkedHashMap<>();
        plans.put(orders, plan("c1", "c1@1"));
        plans.put(users, ServerCommitPlan.forCommitted(of("tunnel-u", entry("d1", 4)), Map.of()));
        meta.resetCounts();

        assertThat(TunnelConsumer.pushAll(meta, plans)).isEmpty();

        assertThat(meta.totalRequests()).as("one BatchGetRow").isEqualTo(1);
        assertThat(server.checkpointOf("c1")).contains("c1@1");
        assertThat(others.checkpointOf("d1")).contains("d1@4");

        open("job-1", others, "users"); // a run restored from the same state takes users over
        Map<TunnelConsumer, ServerCommitPlan> later = new LinkedHashMap<>();
        later.put(orders, plan("c1", "c1@2"));
        later.put(users, ServerCommitPlan.forCommitted(of("tunnel-u", entry("d1", 5)), Map.of()));
        assertThatThrownBy(() -> TunnelConsumer.pushAll(meta, later))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("of table 'users' lost its owner lease");
        assertThat(server.checkpointOf("c1")).as("nothing pushed").contains("c1@1");
    }

    @Test
    void aWriteAfterCloseIsRefusedWithoutCountingTheReleasedLeaseAsLost() {
        TunnelConsumer first = open("job-1");
        String holder = first.holder();
        first.close();
        meta.resetCounts();

        assertThatThrownBy(() -> first.writeSnapshot(snapshot("c1", "c1@1"), 1, List.of()))
                .isInstanceOf(IllegalStateException.class)
                .isNotInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("closed");
        assertThat(meta.totalRequests()).as("refused before a request").isZero();
        assertThat(first.isLost()).isFalse();

        restored("job-1", holder).requireOwnership();
    }

    private String replacementHolder(TunnelConsumer replacement) {
        replacement.requireOwnership();
        return new MetaTable(meta).tunnel("tunnel-t").owner().orElseThrow().holder();
    }

    @Test
    void theFirstWriteAfterALossFailsWithoutARequestToTheMetaTable() {
        TunnelConsumer old = open("job-1");
        open("job-1");
        assertThatThrownBy(old::requireOwnership).isInstanceOf(OwnershipLostException.class);
        meta.resetCounts();

        assertThatThrownBy(() -> old.writeSnapshot(snapshot("c1", "c1@2"), 2, List.of()))
                .isInstanceOf(OwnershipLostException.class);
        assertThat(meta.totalRequests()).isZero();
    }

    @Test
    void aReleasedLeaseStopsTheConsumerAtItsNextWrite() {
        TunnelConsumer consumer = open("job-1");
        TunnelMeta store = new MetaTable(meta).tunnel("tunnel-t");
        store.releaseOwnership(store.owner().orElseThrow());

        assertThatThrownBy(() -> consumer.writeSnapshot(snapshot("c1", "c1@1"), 1, List.of()))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("no consumer holds it now");
    }

    @Test
    void anAdoptionIsRecordedOnceAndARestoredConsumerStartsThere() {
        TunnelConsumer first = open("job-1");
        ChannelCheckpoint c2 =
                ChannelCheckpoint.adopted("c2", ChannelType.STREAM, ChannelPosition.at("c2@3"));
        first.recordAdoptions(List.of(c2));
        meta.resetCounts();
        first.recordAdoptions(List.of(c2));
        assertThat(meta.totalRequests()).isZero();
        first.close();

        TunnelConsumer restored = open("job-1");
        AdoptionHistory history = restored.adoptionHistory();
        assertThat(restored.startOf("c2", history)).contains(ChannelPosition.at("c2@3"));
        assertThat(restored.startOf("c2", AdoptionHistory.none()))
                .isEqualTo(restored.serverCheckpoint("c2"));
    }

    @Test
    void aFirstMergeAdoptsAtTheServerCheckpointsAndALaterOneGoesBackToTheFirstAdoption() {
        TunnelConsumer consumer = open("query-1");
        consumer.session().heartbeatOnce();
        ChannelPosition c2AtStart = consumer.serverCheckpoint("c2").orElseThrow();

        MergeResult first =
                consumer.merge(
                        Optional.empty(),
                        server.describeTunnel("table", "t").channels(),
                        VanishedChannelPolicy.FAIL,
                        ServerAheadPolicy.FAIL);
        assertThat(first.adopted()).containsExactly("c1", "c2");
        assertThat(first.entries().get("c2").position()).isEqualTo(c2AtStart);
        assertThat(consumer.adoptionHistory().firstAdoptedAt("c2")).contains(c2AtStart);

        // The server moves on for c2 (another client's push, say) while the committed batch
        // does not hold c2 yet: the next merge goes back to where this consumer adopted it.
        server.checkpoint(consumer.clientId(), "c2", ChannelPosition.at("c2@5"), 5);
        MergeResult later =
                consumer.merge(
                        Optional.of(snapshot("c1", "c1@1")),
                        server.describeTunnel("table", "t").channels(),
                        VanishedChannelPolicy.FAIL,
                        ServerAheadPolicy.FAIL);
        assertThat(later.adopted()).containsExactly("c2");
        assertThat(later.entries().get("c2").position()).isEqualTo(c2AtStart);
        assertThat(later.entries().get("c1").position()).isEqualTo(ChannelPosition.at("c1@1"));
        assertThat(consumer.channelsSkippedOnServerAhead()).isZero();
    }

    @Test
    void snapshotsBeyondTheRetentionArePurged() {
        TunnelConsumer consumer = open("job-1", 3);
        for (int batch = 1; batch <= 8; batch++) {
            consumer.writeSnapshot(snapshot("c1", "c1@" + batch), batch, List.of());
        }

        assertThat(consumer.meta().batchLog()).hasSizeLessThanOrEqualTo(4);
        assertThat(consumer.meta().newestSnapshot().orElseThrow().channels())
                .containsEntry("c1", snapshot("c1", "c1@8").channels().get("c1"));
    }

    @Test
    void aPushIsRecordedAndAFinishHeartbeatsAtOnce() {
        TunnelConsumer consumer = open("job-1");
        consumer.session().heartbeatOnce();
        int heartbeats = server.requests().heartbeats().size();

        assertThat(consumer.push(plan("c1", "c1@1"))).isTrue();
        assertThat(server.checkpointOf("c1")).contains("c1@1");
        assertThat(server.requests().heartbeats()).hasSize(heartbeats);

        server.seal("c1");
        BatchSnapshot done =
                new BatchSnapshot(
                        "tunnel-t",
                        BatchToken.random(),
                        Map.of(
                                "c1",
                                ChannelCheckpoint.adopted(
                                                "c1",
                                                ChannelType.STREAM,
                                                ChannelPosition.at("c1@0"))
                                        .advancedTo(
                                                ChannelPosition.finished(), 1, SequenceInfo.NONE)));
        assertThat(consumer.push(consumer.pushes().plan(done))).isTrue();
        assertThat(server.finishesReceived()).contains("c1");
        assertThat(server.requests().heartbeats()).hasSize(heartbeats + 1);
        assertThat(consumer.finishRoundsHeartbeated()).isEqualTo(1);

        consumer.close();
        assertThat(consumer.push(plan("c2", "c2@1"))).isFalse();
    }
}
