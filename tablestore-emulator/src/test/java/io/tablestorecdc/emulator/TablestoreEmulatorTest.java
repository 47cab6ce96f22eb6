package io.tablestorecdc.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TablestoreEmulatorTest {

    @Test
    void defaultsAreDocumentedConstants() {
        TablestoreEmulator emulator = TablestoreEmulator.builder().build();

        assertThat(emulator.instanceName()).isEqualTo(TablestoreEmulator.DEFAULT_INSTANCE);
        assertThat(emulator.accessKeyId()).isEqualTo(TablestoreEmulator.DEFAULT_ACCESS_KEY_ID);
        assertThat(emulator.accessKeySecret())
                .isEqualTo(TablestoreEmulator.DEFAULT_ACCESS_KEY_SECRET);
        assertThat(emulator.toString())
                .doesNotContain(TablestoreEmulator.DEFAULT_ACCESS_KEY_SECRET);
    }

    @Test
    void builderRejectsBadSettingsWithTheFix() {
        assertThatThrownBy(() -> TablestoreEmulator.builder().port(70000).build())
                .hasMessageContaining("port must be 0 (any free port) or 1..65535");
        assertThatThrownBy(() -> TablestoreEmulator.builder().instanceName("a.b").build())
                .hasMessageContaining("[a-zA-Z0-9_-]+");
        assertThatThrownBy(() -> TablestoreEmulator.builder().accessKeyId("").build())
                .hasMessageContaining("accessKeyId must not be empty");
        assertThatThrownBy(() -> TablestoreEmulator.builder().accessKeySecret("").build())
                .hasMessageContaining("accessKeySecret must not be empty");
    }

    @Test
    void endpointBeforeStartSaysToStart() {
        assertThatThrownBy(() -> TablestoreEmulator.builder().build().endpoint())
                .hasMessageContaining("call start() first");
    }

    @Test
    void mainParsesEveryOptionAndRejectsUnknownOnes() {
        TablestoreEmulator.Builder builder = TablestoreEmulator.builder();
        EmulatorMain.parse(
                new String[] {
                    "--port",
                    "0",
                    "--instance",
                    "i1",
                    "--access-key-id",
                    "k",
                    "--access-key-secret",
                    "s"
                },
                builder);
        TablestoreEmulator emulator = builder.build();

        assertThat(emulator.instanceName()).isEqualTo("i1");
        assertThat(emulator.accessKeyId()).isEqualTo("k");
        assertThatThrownBy(() -> EmulatorMain.parse(new String[] {"--bogus", "1"}, builder))
                .hasMessage("Unknown option --bogus");
        assertThatThrownBy(() -> EmulatorMain.parse(new String[] {"--port"}, builder))
                .hasMessageContaining("Missing value after --port");
        assertThatThrownBy(() -> EmulatorMain.parse(new String[] {"--port", "x"}, builder))
                .hasMessageContaining("--port needs a number");
        assertThatThrownBy(
                        () ->
                                EmulatorMain.parse(
                                        new String[] {"--idle-timeout-ms", "soon"}, builder))
                .hasMessageContaining("--idle-timeout-ms needs a number");
        assertThatThrownBy(
                        () -> EmulatorMain.parse(new String[] {"--idle-timeout-ms", "0"}, builder))
                .hasMessageContaining("idleTimeout must be positive");
        assertThatThrownBy(
                        () ->
                                EmulatorMain.parse(
                                        new String[] {"--batch-write-repeated-keys", "maybe"},
                                        builder))
                .hasMessage(
                        "--batch-write-repeated-keys takes refuse (the default) or accept, got"
                                + " 'maybe'");
        EmulatorMain.parse(new String[] {"--batch-write-repeated-keys", "accept"}, builder);
    }
}
