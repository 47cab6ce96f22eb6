package io.tablestorecdc.checkpoint.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One set of refusals, worded in each engine's terms. */
class TunnelOpenerTest {

    private final FakeTunnelService server = FakeTunnelService.streamTunnel();

    @Test
    void aMissingTunnelNamesTheOptionThatCreatesIt() {
        server.setExists(false);

        assertThatThrownBy(
                        () -> opener(Engine.SPARK, Optional.empty()).open(server, Optional.empty()))
                .hasMessageContaining("Tunnel 't' of table 'table' does not exist")
                .hasMessageContaining("set option tunnel.create to stream, base or base-and-stream")
                .hasMessageContaining("let this query create it");
        assertThatThrownBy(
                        () -> opener(Engine.FLINK, Optional.empty()).open(server, Optional.empty()))
                .hasMessageContaining("let this job create it");
    }

    @Test
    void tunnelCreateCreatesAMissingTunnel() {
        server.setExists(false);

        var tunnel =
                opener(Engine.FLINK, Optional.of(TunnelType.STREAM)).open(server, Optional.empty());

        assertThat(tunnel.tunnelId()).isEqualTo("tunnel-t");
        assertThat(server.requests().calls()).contains("createTunnel");
    }

    @Test
    void aReCreatedTunnelIsRefusedInTheEnginesTerms() {
        assertThatThrownBy(
                        () ->
                                opener(Engine.FLINK, Optional.empty())
                                        .open(server, Optional.of("old-id")))
                .hasMessageContaining("job's checkpoint or savepoint belongs to tunnel id old-id")
                .hasMessageContaining("now has id tunnel-t (it was deleted and re-created)")
                .hasMessageContaining("start the job without its checkpoint or savepoint");
        assertThatThrownBy(
                        () ->
                                opener(Engine.SPARK, Optional.empty())
                                        .open(server, Optional.of("old-id")))
                .hasMessageContaining("query's checkpoint location belongs to tunnel id old-id")
                .hasMessageContaining("new checkpoint location");
    }

    @Test
    void anExpiredTunnelIsRefusedWithTheWayToANewOne() {
        server.markExpired();

        assertThatThrownBy(
                        () -> opener(Engine.SPARK, Optional.empty()).open(server, Optional.empty()))
                .hasMessageContaining("has expired")
                .hasMessageContaining("a new tunnel.name, with tunnel.create and tunnel.start")
                .hasMessageContaining("new checkpoint location");
    }

    @Test
    void theSavedTunnelIdOfTheSameTunnelIsAccepted() {
        assertThat(
                        opener(Engine.FLINK, Optional.empty())
                                .open(server, Optional.of("tunnel-t"))
                                .tunnelId())
                .isEqualTo("tunnel-t");
    }

    private static TunnelOpener opener(Engine engine, Optional<TunnelType> create) {
        return new TunnelOpener(engine, "table", "t", create, TunnelStart.latest());
    }
}
