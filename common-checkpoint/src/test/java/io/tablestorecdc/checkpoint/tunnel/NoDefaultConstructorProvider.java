package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.auth.ServiceCredentials;

/** A provider option {@code credentials.provider} cannot build: it needs an argument. */
public final class NoDefaultConstructorProvider implements CredentialsProvider {

    private final ServiceCredentials credentials;

    public NoDefaultConstructorProvider(ServiceCredentials credentials) {
        this.credentials = credentials;
    }

    @Override
    public void setCredentials(ServiceCredentials credentials) {}

    @Override
    public ServiceCredentials getCredentials() {
        return credentials;
    }
}
