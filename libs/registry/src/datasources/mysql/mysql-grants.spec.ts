import { grantedRoles, grantProblems, readGrant } from './mysql-grants';

describe('MySQL grants: a source login may only read its own database (issue #42)', () => {
  const reader = [
    "GRANT USAGE ON *.* TO `reader`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122'",
    'GRANT SELECT, SHOW VIEW ON `shop`.* TO `reader`@`%`',
    'GRANT SELECT (`name`, `id`) ON `shop`.`orders` TO `reader`@`%`',
  ];

  it('accepts SELECT and SHOW VIEW on the database, its tables and columns, and USAGE', () => {
    expect(grantProblems(reader, 'shop')).toEqual([]);
    expect(grantProblems(['GRANT SELECT ON `shop\\_dw`.* TO `r`@`%`'], 'shop_dw')).toEqual([]);
  });

  it.each([
    ['GRANT INSERT, UPDATE ON `shop`.* TO `w`@`%`', /INSERT, UPDATE is more than reading/],
    ['GRANT FILE ON *.* TO `f`@`%`', /FILE is more than reading/],
    ['GRANT SUPER ON *.* TO `s`@`%`', /SUPER is more than reading/],
    ['GRANT PROCESS, RELOAD ON *.* TO `p`@`%`', /PROCESS, RELOAD/],
    ['GRANT ALL PRIVILEGES ON `shop`.* TO `a`@`%`', /ALL PRIVILEGES is more than reading/],
    ['GRANT SELECT ON *.* TO `g`@`%`', /reads every database of the server/],
    ['GRANT SELECT ON `mysql`.* TO `m`@`%`', /reads another database \(mysql\)/],
    ['GRANT SELECT ON `other`.`t` TO `o`@`%`', /reads another database \(other\)/],
    ['GRANT SELECT ON `sh%`.* TO `o`@`%`', /reads another database \(sh% \(a pattern\)\)/],
    ['GRANT SELECT ON `shop`.* TO `o`@`%` WITH GRANT OPTION', /WITH GRANT OPTION/],
    ['GRANT PROXY ON ``@`%` TO `x`@`%`', /PROXY is more than reading/],
    ['GRANT EXECUTE ON PROCEDURE `shop`.`p` TO `x`@`%`', /EXECUTE is more than reading/],
    ['GRANT INSERT ON `shop`.* TO PUBLIC', /INSERT is more than reading/],
    ['GRANT `analyst` TO `x`@`%` WITH ADMIN OPTION', /may grant the role to others/],
  ])('refuses %s, naming the grant', (line, reason) => {
    const problems = grantProblems([...reader, line], 'shop');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(reason);
    expect(problems[0]).toContain(line.replace(/ WITH GRANT OPTION$/, '').slice(0, 20));
  });

  it('never shows the password hash in a refusal', () => {
    const [problem] = grantProblems(
      [
        "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` IDENTIFIED BY PASSWORD '*ABC' WITH GRANT OPTION",
      ],
      'shop',
    );
    expect(problem).not.toMatch(/\*ABC|PASSWORD/);
  });

  it('reads the roles granted, quoted with or without a host (MariaDB, MySQL 8)', () => {
    expect(
      grantedRoles([
        'GRANT `analyst` TO `reader`@`%`',
        'GRANT `ops`@`%`, `bi` TO `reader`@`%`',
        'SET DEFAULT ROLE `analyst` FOR `reader`@`%`',
        ...reader,
      ]),
    ).toEqual(['analyst', 'ops', 'bi']);
    expect(readGrant('SET DEFAULT ROLE `analyst` FOR `reader`@`%`')).toBeUndefined();
  });
});
