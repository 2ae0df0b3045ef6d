// S3_URL and EMBED_ORIGINS: read at start, a bad value named (S3_URL's never echoed: it holds a secret).
import { describe, expect, test } from 'bun:test';
import { ConfigError, loadConfig } from '../../src/config';
import { parseS3Url } from '../../plugins/stores';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return '';
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
};

describe('S3_URL', () => {
  test('unset keeps files in PostgreSQL; set is parsed into endpoint, bucket, prefix, region and keys', () => {
    expect(loadConfig({}).s3Url).toBeUndefined();
    expect(parseS3Url('https://AKIA%2F1:se%2Fcret@s3.eu-central-1.amazonaws.com/partner-files/prod/assets?region=eu-central-1')).toEqual({
      endpoint: 'https://s3.eu-central-1.amazonaws.com',
      bucket: 'partner-files',
      prefix: 'prod/assets',
      region: 'eu-central-1',
      accessKeyId: 'AKIA/1',
      secretAccessKey: 'se/cret',
      virtualHostedStyle: false,
    });
    expect(parseS3Url('http://127.0.0.1:9000/files')).toMatchObject({ bucket: 'files', prefix: '', region: 'us-east-1', accessKeyId: undefined });
  });

  test('a value without a bucket is named, its secret not shown', () => {
    const message = problems({ S3_URL: 'https://KEY:topsecret@s3.example.com' });
    expect(message).toContain('S3_URL:');
    expect(message).not.toContain('topsecret');
  });
});

describe('EMBED_ORIGINS', () => {
  test('a comma list of origins, wildcard subdomains allowed; empty: none', () => {
    expect(loadConfig({}).embedOrigins).toEqual([]);
    expect(loadConfig({ EMBED_ORIGINS: 'https://app.example.com, https://*.example.org/ ,http://localhost:5173' }).embedOrigins).toEqual([
      'https://app.example.com',
      'https://*.example.org',
      'http://localhost:5173',
    ]);
  });

  test.each(['app.example.com', 'https://app.example.com/path', "https://x.example 'unsafe-inline'", '*'])('%j is named as not an origin', (value) => {
    expect(problems({ EMBED_ORIGINS: value })).toContain('EMBED_ORIGINS:');
  });
});
