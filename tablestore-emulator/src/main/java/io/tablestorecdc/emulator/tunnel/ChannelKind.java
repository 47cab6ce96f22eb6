package io.tablestorecdc.emulator.tunnel;

/** The two kinds of channel, spelled as DescribeTunnel's {@code channel_type} needs them. */
enum ChannelKind {
    BASE("BaseData"),
    STREAM("Stream");

    private final String wireName;

    ChannelKind(String wireName) {
        this.wireName = wireName;
    }

    String wireName() {
        return wireName;
    }
}
