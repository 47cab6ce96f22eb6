package io.tablestorecdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.checkpoint.meta.OwnershipConflictException;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.testing.FakeServices;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Invariant 8 in the enumerator: one owner per tunnel, and the predecessor's client shut down. */
class TablestoreCdcEnumeratorOwnershipTest {

    private static final String TUNNEL_ID = "tunnel-1";

    private final FakeTunnelService server =
            FakeServices.ordersTunnel(TUNNEL_ID, TunnelType.STREAM)
                    .channel("a", ChannelType.STREAM);
    private final InMemoryMetaTableClient meta = new InMemoryMetaTableClient();
    private final TunnelMeta store = new MetaTable(meta).tunnel(TUNNEL_ID);
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    @Test
    void theLeaseIsTakenBeforeTheClientConnectsAndTheClientIsRecorded() {
        AtomicReference<Optional<OwnerLease>> ownerAtConnect = new AtomicReference<>();
        server.script().onConnect(() -> ownerAtConnect.set(store.owner()));

        TablestoreCdcEnumerator job = start(source(), EnumeratorState.initial());

        String consumerId = job.snapshotState(1).consumerId().orElseThrow();
        assertThat(ownerAtConnect.get())
                .hasValueSatisfying(l -> assertThat(l.consumerId()).isEqualTo(consumerId));
        assertThat(store.lastTunnelClient()).contains("client-1");
        assertThat(server.requests().shutdowns()).isEmpty();
    }

    @Test
    void aSecondJobOnTheSameTunnelIsRefusedBeforeItConnects() {
        start(source(), EnumeratorState.initial());

        assertThatThrownBy(() -> start(source(), EnumeratorState.initial()))
                .isInstanceOf(OwnershipConflictException.class)
                .hasMessageContaining(TUNNEL_ID);
        assertThat(server.connects()).isEqualTo(1);
    }

    @Test
    void aFailoverBeforeTheFirstCheckpointKeepsTheOwnerAndShutsDownTheOldClient() {
        TablestoreCdcSource<String> source = source();
        start(source, EnumeratorState.initial());
        String crashedConsumer = store.owner().orElseThrow().consumerId();

        // The same job graph restarts without state; the crashed enumerator never closed.
        TablestoreCdcEnumerator restarted = start(source, EnumeratorState.initial());

        assertThat(restarted.snapshotState(1).consumerId()).contains(crashedConsumer);
        assertThat(server.requests().shutdowns()).containsExactly("client-1");
        assertThat(store.lastTunnelClient()).contains("client-2");
    }

    @Test
    void aRestoreTakesTheTunnelOverAndTheReplacedJobFailsWithoutRestarts() throws Throwable {
        MockSplitEnumeratorContext<ChannelSplit> oldContext = context();
        TablestoreCdcEnumerator old = start(source(), EnumeratorState.initial(), oldContext);
        EnumeratorState checkpoint = old.snapshotState(1);

        // A new submission (another source instance) restored from the old job's checkpoint.
        TablestoreCdcEnumerator restored = start(source(), checkpoint);

        assertThat(restored.snapshotState(2).consumerId()).isEqualTo(checkpoint.consumerId());
        assertThat(server.requests().shutdowns()).containsExactly("client-1");
        old.requestLeaseRenewal();
        // Restarted, the replaced job would take the tunnel back: Flink must not restart it.
        assertThatThrownBy(() -> oldContext.runPeriodicCallable(0))
                .hasRootCauseInstanceOf(OwnershipLostException.class)
                .satisfies(
                        e ->
                                assertThat(
                                                ExceptionUtils.findThrowable(
                                                        e, SuppressRestartsException.class))
                                        .isPresent());
    }

    @Test
    void aCheckpointStartedAfterATakeoverIsDeclinedAndTheJobFailsWithoutRestarts()
            throws Throwable {
        MockSplitEnumeratorContext<ChannelSplit> oldContext = context();
        TablestoreCdcEnumerator old = start(source(), EnumeratorState.initial(), oldContext);
        EnumeratorState checkpoint = old.snapshotState(1);
        TablestoreCdcEnumerator restored = start(source(), checkpoint);

        // Flink takes the enumerator's state before the checkpoint's barriers leave the sources:
        // refused there, the checkpoint never completes, and no sink commits what it would hold.
        assertThatThrownBy(() -> old.snapshotState(2)).isInstanceOf(OwnershipLostException.class);
        assertThatThrownBy(oldContext::runNextOneTimeCallable)
                .satisfies(
                        e ->
                                assertThat(
                                                ExceptionUtils.findThrowable(
                                                        e, SuppressRestartsException.class))
                                        .isPresent());
        assertThat(restored.snapshotState(2).leaseHolder())
                .isPresent()
                .isNotEqualTo(checkpoint.leaseHolder());
    }

    @Test
    void aRestartOfAJobThatLostItsLeaseIsRefusedAndDoesNotTakeTheTunnelBack() throws Exception {
        TablestoreCdcEnumerator old = start(source(), EnumeratorState.initial());
        EnumeratorState checkpoint = old.snapshotState(1);
        TablestoreCdcEnumerator restored = start(source(), checkpoint);
        OwnerLease owner = store.owner().orElseThrow();
        // A failover of the old job (a reader failed on its shut-down client, say) closes its
        // enumerator, whose release finds the lease taken over; the restart restores the same
        // checkpoint.
        old.close();

        assertThatThrownBy(() -> start(source(), checkpoint))
                .isInstanceOf(SuppressRestartsException.class)
                .hasRootCauseInstanceOf(OwnershipLostException.class)
                .hasStackTraceContaining("is not restarted");

        assertThat(store.owner()).contains(owner);
        assertThat(restored.snapshotState(2).consumerId()).isEqualTo(checkpoint.consumerId());
    }

    @Test
    void theLeaseIsRenewedByTheDiscoveryRound() throws Throwable {
        MockSplitEnumeratorContext<ChannelSplit> context = context();
        TablestoreCdcEnumerator job = start(source(), EnumeratorState.initial(), context);
        long epoch = store.owner().orElseThrow().epoch();

        job.requestLeaseRenewal();
        context.runPeriodicCallable(0);

        assertThat(store.owner().orElseThrow().epoch()).isGreaterThan(epoch);
    }

    @Test
    void closeReleasesTheLeaseSoAnotherJobStartsAtOnce() throws Exception {
        TablestoreCdcEnumerator first = start(source(), EnumeratorState.initial());
        first.close();

        TablestoreCdcEnumerator second = start(source(), EnumeratorState.initial());

        assertThat(store.owner().orElseThrow().consumerId())
                .isEqualTo(second.snapshotState(1).consumerId().orElseThrow());
    }

    private TablestoreCdcSource<String> source() {
        return TablestoreCdcSource.<String>builder()
                .setEndpoint("http://127.0.0.1:1")
                .setInstanceName("test")
                .setCredentials("id", "secret")
                .setTableName(FakeServices.TABLE)
                .setTunnelName(FakeServices.TUNNEL)
                .setDiscoveryInterval(Duration.ofSeconds(1))
                .setHeartbeatInterval(Duration.ofSeconds(5))
                .setDeserializer(new RecordStrings())
                .setTunnelProxyFactory(FakeServices.tunnelProxies(getClass().getName(), server))
                .setMetaTableClientFactory(FakeServices.metaTables(getClass().getName(), meta))
                .build();
    }

    private MockSplitEnumeratorContext<ChannelSplit> context() {
        MockSplitEnumeratorContext<ChannelSplit> context = new MockSplitEnumeratorContext<>(1);
        toClose.add(context);
        return context;
    }

    private TablestoreCdcEnumerator start(
            TablestoreCdcSource<String> source, EnumeratorState state) {
        return start(source, state, context());
    }

    private TablestoreCdcEnumerator start(
            TablestoreCdcSource<String> source,
            EnumeratorState state,
            MockSplitEnumeratorContext<ChannelSplit> context) {
        TablestoreCdcEnumerator enumerator =
                (TablestoreCdcEnumerator) source.restoreEnumerator(context, state);
        toClose.add(0, enumerator);
        enumerator.start();
        return enumerator;
    }
}
