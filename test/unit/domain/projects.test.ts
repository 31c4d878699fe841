import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inWorkspace, isPath, projectName, projectOf } from '../../../src/domain/projects.ts';

describe('projectOf', () => {
  it('is the working directory, else the repository, else undefined', () => {
    assert.equal(projectOf({ project: '/home/dev/api', repository: 'acme/api' }), '/home/dev/api');
    assert.equal(projectOf({ repository: 'acme/api' }), 'acme/api');
    assert.equal(projectOf({ project: '', repository: '' }), undefined);
    assert.equal(projectOf({}), undefined);
  });
});

describe('projectName', () => {
  it('is the last segment of a path, repository name or URL, without .git', () => {
    assert.equal(projectName('/home/dev/orbit-api'), 'orbit-api');
    assert.equal(projectName('/home/dev/orbit-api/'), 'orbit-api');
    assert.equal(projectName('C:\\Users\\dev\\web-console'), 'web-console');
    assert.equal(projectName('acme/ledger-service'), 'ledger-service');
    assert.equal(projectName('https://github.com/acme/infra-tools.git'), 'infra-tools');
    assert.equal(projectName('git@github.com:acme/infra-tools.git'), 'infra-tools');
    assert.equal(projectName('.git'), '.git', 'a name that is only ".git" stays');
    assert.equal(projectName('/'), '/');
  });
});

describe('isPath', () => {
  it('tells absolute paths from repository names', () => {
    assert.ok(isPath('/home/dev/api'));
    assert.ok(isPath('C:\\work\\api'));
    assert.ok(isPath('d:/work/api'));
    assert.ok(isPath('\\\\server\\share\\api'));
    assert.ok(!isPath('acme/api'));
    assert.ok(!isPath('https://github.com/acme/api'));
  });
});

describe('inWorkspace', () => {
  const folders = ['/home/dev/orbit-api', '/work/mono/'];

  it('a path equal to or inside a folder is in; a sibling with the same prefix is not', () => {
    assert.ok(inWorkspace('/home/dev/orbit-api', folders));
    assert.ok(inWorkspace('/home/dev/orbit-api/', folders));
    assert.ok(inWorkspace('/home/dev/orbit-api/packages/core', folders));
    assert.ok(inWorkspace('/work/mono', folders), 'a trailing slash on the folder does not matter');
    assert.ok(!inWorkspace('/home/dev/orbit-api-old', folders));
    assert.ok(!inWorkspace('/home/dev', folders), 'a parent of the folder is outside it');
    assert.ok(!inWorkspace('/elsewhere/orbit-api', folders), 'a path is not matched by its name');
  });

  it('Windows paths match whatever the case and slashes', () => {
    assert.ok(inWorkspace('c:\\Work\\API\\src', ['C:\\work\\api']));
    assert.ok(inWorkspace('C:/work/api', ['c:\\WORK\\api\\']));
    assert.ok(!inWorkspace('C:\\work\\api2', ['C:\\work\\api']));
  });

  it('a repository matches a folder of the same name, case-insensitively', () => {
    assert.ok(inWorkspace('acme/Orbit-API', folders));
    assert.ok(inWorkspace('https://github.com/acme/orbit-api.git', folders));
    assert.ok(inWorkspace('mono', folders));
    assert.ok(!inWorkspace('acme/ledger-service', folders));
  });

  it('nothing is in a workspace without folders, and no project is in any', () => {
    assert.ok(!inWorkspace('/home/dev/orbit-api', []));
    assert.ok(!inWorkspace(undefined, folders));
  });

  it('a folder at the file-system root contains every path', () => {
    assert.ok(inWorkspace('/home/dev/api', ['/']));
  });
});
