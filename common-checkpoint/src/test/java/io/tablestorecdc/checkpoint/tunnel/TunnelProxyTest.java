package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import org.junit.jupiter.api.Test;

class TunnelProxyTest {

    private final FakeTunnelService server = FakeTunnelService.streamTunnel();

    @Test
    void describeOrCreateCreatesAMissingTunnel() {
        server.setExists(false);

        TunnelDescription d =
                server.describeOrCreateTunnel(
                        "table", "t", TunnelType.STREAM, TunnelStart.latest());

        assertThat(d.tunnelId()).isEqualTo("tunnel-t");
        assertThat(server.requests().calls())
                .containsExactly("describeTunnel", "createTunnel", "describeTunnel");
    }

    @Test
    void describeOrCreateUsesATunnelCreatedConcurrently() {
        // Another consumer creates the tunnel between our describe and our create.
        server.script().failNext("describeTunnel", new TunnelException(Kind.NOT_FOUND, "not yet"));

        TunnelDescription d =
                server.describeOrCreateTunnel(
                        "table", "t", TunnelType.STREAM, TunnelStart.latest());

        assertThat(d.tunnelId()).isEqualTo("tunnel-t");
        assertThat(server.requests().calls())
                .containsExactly("describeTunnel", "createTunnel", "describeTunnel");
    }

    @Test
    void describeOrCreatePassesOtherErrorsOn() {
        server.script()
                .failNext("describeTunnel", new TunnelException(Kind.ACCESS_DENIED, "denied"));

        assertThatThrownBy(
                        () ->
                                server.describeOrCreateTunnel(
                                        "table", "t", TunnelType.STREAM, TunnelStart.latest()))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.ACCESS_DENIED));
        assertThat(server.requests().calls()).containsExactly("describeTunnel");
    }

    @Test
    void tunnelStartRejectsAnEndBeforeItsStart() {
        java.time.Instant t = java.time.Instant.parse("2026-01-01T00:00:00Z");

        assertThatThrownBy(() -> TunnelStart.at(t).until(t.minusSeconds(1)))
                .hasMessageContaining("must be after its start");
    }
}
