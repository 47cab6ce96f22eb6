package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.Optional;

/** The emulator in the benchmark's own JVM (setting {@code emulator=embedded}, the default). */
final class EmbeddedEmulator implements BenchEmulator {

    private final TablestoreEmulator emulator;

    private EmbeddedEmulator(TablestoreEmulator emulator) {
        this.emulator = emulator;
    }

    static EmbeddedEmulator start() {
        return new EmbeddedEmulator(TablestoreEmulator.builder().build().start());
    }

    @Override
    public String mode() {
        return "embedded";
    }

    @Override
    public String endpoint() {
        return emulator.endpoint();
    }

    @Override
    public String instanceName() {
        return emulator.instanceName();
    }

    @Override
    public String accessKeyId() {
        return emulator.accessKeyId();
    }

    @Override
    public String accessKeySecret() {
        return emulator.accessKeySecret();
    }

    @Override
    public void split(String table, PrimaryKey at) {
        emulator.tunnels().split(table, at);
    }

    @Override
    public ServerCpu serverCpu() {
        return ServerCpu.threadsOfThisJvm();
    }

    @Override
    public Optional<TablestoreEmulator> inProcess() {
        return Optional.of(emulator);
    }

    @Override
    public void close() {
        emulator.close();
    }

    @Override
    public String toString() {
        return "embedded emulator at " + emulator.endpoint();
    }
}
